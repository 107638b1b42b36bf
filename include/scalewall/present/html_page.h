// scalewall/present/html_page.h: a self-contained HTML page of figures and tables.
//
// `scalewall report` writes one: sections of headings, paragraphs, figures (image files beside
// the page, referenced by their relative file names) and tables (report.h Tables, cells in the
// same human units as the table format). The page needs nothing else: the CSS is inline, and
// there are no external scripts, fonts or images.
//
// Every figure and every section carries its kind (model, simulation, measurement) as a
// visible label, as the command-line tables do in their banner line.
//
// The page checks itself: a small inline script, on load, writes each image's natural size
// into its data-natural-width and data-natural-height attributes and a summary into the
// hidden element <pre id="selfcheck">:
//   loaded
//   images 9 rendered 9
//   img scaling.svg 960x600
//   ...
//   errors 0
// (script errors caught by window.onerror are counted and listed as "error <message>"), so
// that a headless browser's --dump-dom shows whether everything rendered.
#ifndef SCALEWALL_HTML_PAGE_H_
#define SCALEWALL_HTML_PAGE_H_

#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "scalewall/present/report.h"

namespace scalewall {

// A paragraph of plain text (escaped; no markup).
struct HtmlParagraph {
  std::string text;
};

// A figure: the image shown (SVG, so it scales), a link to the other format, a caption.
struct HtmlFigure {
  Kind kind = Kind::kModel;
  std::string image;        // relative file name shown, "seed-7b-scaling.svg"
  std::string alternate;    // relative file name linked, "seed-7b-scaling.png"; may be empty
  std::string caption;      // plain text
  int width_px = 0;         // the image's size, written as width and height attributes
  int height_px = 0;        // (0: left out)
};

// A table: report.h's Table with a caption; cells as format_cell shows them, the row marks
// in a last column when any row has one.
struct HtmlTable {
  std::string caption;
  Table table;
};

// A list of "title: value" lines (report.h Fields, shown as format_cell does).
struct HtmlFields {
  std::vector<Field> fields;
};

using HtmlBlock = std::variant<HtmlParagraph, HtmlFigure, HtmlTable, HtmlFields>;

struct HtmlSection {
  std::string heading;
  Kind kind = Kind::kModel;
  std::string id;  // the anchor: letters, digits and '-' only
  std::vector<HtmlBlock> blocks;
};

struct HtmlPage {
  std::string title;
  std::vector<std::string> intro;  // paragraphs under the title
  std::vector<HtmlSection> sections;
  std::string footer;              // one line at the end ("scalewall 0.1.0, ...")
};

// &, <, >, " and ' as entities; control characters (but tab and line feed) written visibly
// as \r, \x00, \x1b or \u0085, and bytes that are not UTF-8 as U+FFFD, so that no input
// puts a raw NUL or CR on the page.
std::string html_escape(std::string_view text);

// The whole page: <!DOCTYPE html> to </html>, with the table of contents, the sections, the
// self-check script.
std::string render_html(const HtmlPage& page);

// Every image file the page references (figures' image and alternate), in page order.
std::vector<std::string> html_page_files(const HtmlPage& page);

}  // namespace scalewall

#endif  // SCALEWALL_HTML_PAGE_H_
