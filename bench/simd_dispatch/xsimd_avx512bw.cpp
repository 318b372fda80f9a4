// bench_simd_dispatch: the xsimd kernels for AVX-512 (this file is compiled with -mavx512f
// -mavx512cd -mavx512dq -mavx512bw, the features xsimd's avx512bw architecture builds on).
#include "xsimd_kernels.hpp"

QUOCT_XSIMD_INSTANTIATE(, xsimd::avx512bw)
