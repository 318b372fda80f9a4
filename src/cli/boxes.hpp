// quoct's box subcommand: axis-aligned boxes from a CSV file (columns minx, miny, maxx, maxy,
// and minz, maxz for 3D), indexed by quoct::packed_box_index.
//   quoct boxes FILE --pairs                       every pair of boxes that meet: rows a,b
//   quoct boxes FILE --point X,Y[,Z]               the boxes holding the point: rows id
//   quoct boxes FILE --min X,Y[,Z] --max X,Y[,Z]   the boxes meeting the box: rows id
#ifndef QUOCT_CLI_BOXES_HPP
#define QUOCT_CLI_BOXES_HPP

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace quoct {
namespace cli {

/// The box subcommand's arguments.
struct boxes_args {
    std::string file;              // a CSV file, or - for standard input
    bool pairs = false;            // --pairs
    std::vector<double> point;     // --point
    std::vector<double> lo, hi;    // --min, --max
};

/// Declares `boxes`.
CLI::App* add_boxes_command(CLI::App& app, boxes_args& a);

/// Runs `boxes`: prints CSV with a header (a,b for pairs, id otherwise), ids being the boxes'
/// record numbers from 0, in increasing order. Throws on bad input (a missing column, a
/// field that is not a finite number, a box with min > max), naming the file and the
/// record, and for a query of another dimension than the boxes'.
int run_boxes(const boxes_args& a);

}  // namespace cli
}  // namespace quoct

#endif  // QUOCT_CLI_BOXES_HPP
