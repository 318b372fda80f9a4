// bench_simd_dispatch: the xsimd kernels for AVX2 (this file is compiled with -mavx2).
#include "xsimd_kernels.hpp"

QUOCT_XSIMD_INSTANTIATE(, xsimd::avx2)
