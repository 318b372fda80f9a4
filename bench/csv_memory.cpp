// Reads one CSV file with one quoct::io call and prints how many records it got, so that
// /usr/bin/time -v (maximum resident set size), valgrind massif or callgrind can measure the
// call alone (bench/README.md, "CSV reading: peak memory"; files from bench/make_csv.py).
//
//   csv_memory read_csv FILE
//   csv_memory read_locations_csv FILE      (columns lon, lat)
//   csv_memory read_columns FILE COL...     (the numbers of the named columns)
#include <quoct/io/csv.hpp>
#include <quoct/io/locations.hpp>

#include <cstdio>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

int main(int argc, char** argv) {
    if (argc < 3) {
        std::fprintf(stderr, "usage: csv_memory read_csv|read_locations_csv|read_columns FILE [COL...]\n");
        return 2;
    }
    const std::string call = argv[1], file = argv[2];
    try {
        std::size_t n = 0;
        if (call == "read_csv") {
            n = quoct::io::read_csv(file).rows.size();
        } else if (call == "read_locations_csv") {
            n = quoct::io::read_locations_csv(file).locations.size();
        } else if (call == "read_columns") {
            const std::vector<std::string> columns(argv + 3, argv + argc);
            n = quoct::io::read_columns(file, columns).size() / (columns.empty() ? 1 : columns.size());
        } else {
            std::fprintf(stderr, "csv_memory: unknown call %s\n", call.c_str());
            return 2;
        }
        std::printf("%zu\n", n);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "csv_memory: %s\n", e.what());
        return 1;
    }
    return 0;
}
