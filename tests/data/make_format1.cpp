// Writes tests/data/format1_dynamic.quoct and format1_geo.quoct from format1_recipe.hpp.
// They were written by the library version before a dynamic index stopped keeping every
// point by id and a geographic index its unit vectors by id; kept as they are, to test that
// files from that version are still read. Not built by CMake.
//   g++ -std=c++17 -I<include of that version> -Itests/data tests/data/make_format1.cpp
#include <quoct/file.hpp>

#include "format1_recipe.hpp"

int main() {
    quoct::save(format1::dynamic_index(), "format1_dynamic.quoct");
    quoct::save(format1::geo_index(), "format1_geo.quoct");
}
