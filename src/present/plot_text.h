// src/present/plot_text.h: the gnuplot text helpers of plot.cc, for the present layer's other
// figure builders (split_plots.cc). Internal to the present layer. Every string from input
// reaches gnuplot through quoted() or data_column() (plot.cc says why they are safe).
#ifndef SCALEWALL_PRESENT_PLOT_TEXT_H_
#define SCALEWALL_PRESENT_PLOT_TEXT_H_

#include <string>
#include <string_view>

namespace scalewall::plot_text {

// A single-quoted gnuplot string literal of `text`.
std::string quoted(std::string_view text);
// A double-quoted text column of a datablock row.
std::string data_column(std::string_view text);
// A finite number as gnuplot reads it back exactly (shortest round trip).
std::string number(double x);

}  // namespace scalewall::plot_text

#endif  // SCALEWALL_PRESENT_PLOT_TEXT_H_
