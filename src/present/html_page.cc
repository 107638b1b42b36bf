// Implementation of scalewall/present/html_page.h.
#include "scalewall/present/html_page.h"

#include <iterator>

#include <fmt/format.h>

#include "scalewall/base/utf8.h"

namespace scalewall {
namespace {

constexpr std::string_view kStyle = R"css(
body { font-family: "DejaVu Sans", "Helvetica Neue", Arial, sans-serif; color: #222;
       max-width: 1100px; margin: 2em auto; padding: 0 1em; line-height: 1.45; }
h1 { font-size: 1.6em; margin-bottom: 0.2em; }
h2 { font-size: 1.3em; margin-top: 2em; border-bottom: 1px solid #ccc; padding-bottom: 0.2em; }
nav ul { padding-left: 1.2em; }
figure { margin: 1.5em 0; }
figure img { max-width: 100%; height: auto; border: 1px solid #ddd; }
figcaption { font-size: 0.92em; color: #444; margin-top: 0.3em; }
table { border-collapse: collapse; margin: 1em 0; font-size: 0.88em; }
caption { text-align: left; font-weight: bold; padding-bottom: 0.3em; }
th, td { border: 1px solid #ccc; padding: 0.2em 0.6em; text-align: right; white-space: nowrap; }
th { background: #f2f2f2; }
td.text { text-align: left; white-space: normal; min-width: 8em; }
.table-wrap { overflow-x: auto; }
tr.marked td { background: #fff7e0; }
dl.fields { display: grid; grid-template-columns: max-content auto; gap: 0.15em 1em; }
dl.fields dt { font-weight: bold; }
dl.fields dd { margin: 0; }
.kind { display: inline-block; font-size: 0.75em; font-weight: bold; letter-spacing: 0.05em;
        padding: 0.1em 0.5em; border-radius: 3px; color: #fff; vertical-align: middle; }
.kind.model { background: #1f5fa8; }
.kind.simulation { background: #b26b00; }
.kind.measurement { background: #2a7d2e; }
footer { margin-top: 3em; font-size: 0.85em; color: #666; }
)css";

// On load: each image's natural size into data attributes and a summary into #selfcheck,
// script errors counted.
constexpr std::string_view kSelfCheck = R"js(
(function () {
  var errors = [];
  window.addEventListener('error', function (e) { errors.push(String(e.message)); });
  window.addEventListener('load', function () {
    var images = document.querySelectorAll('img');
    var lines = [];
    var rendered = 0;
    for (var i = 0; i < images.length; i++) {
      var img = images[i];
      img.setAttribute('data-natural-width', String(img.naturalWidth));
      img.setAttribute('data-natural-height', String(img.naturalHeight));
      if (img.complete && img.naturalWidth > 0 && img.naturalHeight > 0) rendered++;
      lines.push('img ' + img.getAttribute('src') + ' ' + img.naturalWidth + 'x' +
                 img.naturalHeight);
    }
    var text = 'loaded\nimages ' + images.length + ' rendered ' + rendered + '\n' +
               lines.join('\n') + (lines.length ? '\n' : '') + 'errors ' + errors.length;
    for (var k = 0; k < errors.length; k++) text += '\nerror ' + errors[k];
    document.getElementById('selfcheck').textContent = text;
  });
})();
)js";

std::string kind_class(Kind kind) { return std::string(kind_name(kind)); }

std::string kind_badge(Kind kind) {
  std::string upper(kind_name(kind));
  for (char& c : upper) c = static_cast<char>(c - ('a' <= c && c <= 'z' ? 'a' - 'A' : 0));
  return fmt::format("<span class=\"kind {}\">{}</span>", kind_class(kind), upper);
}

void table_html(std::string& out, const HtmlTable& t) {
  const Table& table = t.table;
  bool any_mark = false;
  for (const std::string& m : table.marks) any_mark = any_mark || !m.empty();
  out += "<div class=\"table-wrap\"><table>\n";
  if (!t.caption.empty()) out += fmt::format("<caption>{}</caption>\n", html_escape(t.caption));
  out += "<thead><tr>";
  for (const Column& c : table.columns) out += fmt::format("<th>{}</th>", html_escape(c.title));
  if (any_mark) out += "<th></th>";
  out += "</tr></thead>\n<tbody>\n";
  for (std::size_t r = 0; r < table.rows.size(); ++r) {
    const bool marked = r < table.marks.size() && !table.marks[r].empty();
    out += marked ? "<tr class=\"marked\">" : "<tr>";
    for (std::size_t i = 0; i < table.columns.size() && i < table.rows[r].size(); ++i) {
      const Unit unit = table.columns[i].unit;
      out += fmt::format("<td{}>{}</td>", unit == Unit::kText ? " class=\"text\"" : "",
                         html_escape(format_cell(table.rows[r][i], unit)));
    }
    if (any_mark) {
      out += fmt::format("<td class=\"text\">{}</td>",
                         marked ? html_escape(table.marks[r]) : std::string());
    }
    out += "</tr>\n";
  }
  out += "</tbody>\n</table></div>\n";
}

void fields_html(std::string& out, const HtmlFields& f) {
  out += "<dl class=\"fields\">\n";
  for (const Field& field : f.fields) {
    const bool null = std::holds_alternative<std::monostate>(field.value);
    out += fmt::format("<dt>{}</dt><dd>{}</dd>\n", html_escape(field.title),
                       html_escape(null ? field.null_text : format_cell(field.value, field.unit)));
  }
  out += "</dl>\n";
}

void figure_html(std::string& out, const HtmlFigure& f) {
  out += fmt::format("<figure class=\"{}\">\n", kind_class(f.kind));
  std::string size;
  if (f.width_px > 0 && f.height_px > 0) {
    size = fmt::format(" width=\"{}\" height=\"{}\"", f.width_px, f.height_px);
  }
  out += fmt::format("<img src=\"{}\" alt=\"{}\"{}>\n", html_escape(f.image),
                     html_escape(f.caption), size);
  out += fmt::format("<figcaption>{} {}", kind_badge(f.kind), html_escape(f.caption));
  if (!f.alternate.empty()) {
    out += fmt::format(" (<a href=\"{}\">{}</a>)", html_escape(f.alternate),
                       html_escape(f.alternate));
  }
  out += "</figcaption>\n</figure>\n";
}

}  // namespace

std::string html_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  while (!text.empty()) {
    const char c = text.front();
    const auto byte = static_cast<unsigned char>(c);
    const std::size_t length = utf8_sequence(text);
    if (c == '&') {
      out += "&amp;";
    } else if (c == '<') {
      out += "&lt;";
    } else if (c == '>') {
      out += "&gt;";
    } else if (c == '"') {
      out += "&quot;";
    } else if (c == '\'') {
      out += "&#39;";
    } else if (c == '\r') {
      out += "\\r";
    } else if ((byte < 0x20 && c != '\t' && c != '\n') || byte == 0x7F) {
      out += fmt::format("\\x{:02x}", static_cast<unsigned>(byte));
    } else if (length == 0) {
      out += "\uFFFD";  // a byte that is not UTF-8, on a page that says it is
    } else if (length == 2 && byte == 0xC2 && static_cast<unsigned char>(text[1]) < 0xA0) {
      out += fmt::format("\\u{:04x}", static_cast<unsigned char>(text[1]));  // C1 controls
      text.remove_prefix(2);
      continue;
    } else {
      out += text.substr(0, length);
      text.remove_prefix(length);
      continue;
    }
    text.remove_prefix(1);
  }
  return out;
}

std::string render_html(const HtmlPage& page) {
  std::string out;
  out += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  out += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  out += fmt::format("<title>{}</title>\n", html_escape(page.title));
  out += fmt::format("<style>{}</style>\n</head>\n<body>\n", kStyle);
  out += fmt::format("<h1>{}</h1>\n", html_escape(page.title));
  for (const std::string& p : page.intro) out += fmt::format("<p>{}</p>\n", html_escape(p));
  if (!page.sections.empty()) {
    out += "<nav><ul>\n";
    for (const HtmlSection& s : page.sections) {
      out += fmt::format("<li>{} <a href=\"#{}\">{}</a></li>\n", kind_badge(s.kind),
                         html_escape(s.id), html_escape(s.heading));
    }
    out += "</ul></nav>\n";
  }
  for (const HtmlSection& s : page.sections) {
    out += fmt::format("<section id=\"{}\" class=\"{}\">\n<h2>{} {}</h2>\n", html_escape(s.id),
                       kind_class(s.kind), kind_badge(s.kind), html_escape(s.heading));
    for (const HtmlBlock& block : s.blocks) {
      std::visit(
          [&](const auto& b) {
            using T = std::decay_t<decltype(b)>;
            if constexpr (std::is_same_v<T, HtmlParagraph>) {
              out += fmt::format("<p>{}</p>\n", html_escape(b.text));
            } else if constexpr (std::is_same_v<T, HtmlFigure>) {
              figure_html(out, b);
            } else if constexpr (std::is_same_v<T, HtmlTable>) {
              table_html(out, b);
            } else {
              fields_html(out, b);
            }
          },
          block);
    }
    out += "</section>\n";
  }
  if (!page.footer.empty()) out += fmt::format("<footer>{}</footer>\n", html_escape(page.footer));
  out += "<pre id=\"selfcheck\" hidden>pending</pre>\n";
  out += fmt::format("<script>{}</script>\n</body>\n</html>\n", kSelfCheck);
  return out;
}

std::vector<std::string> html_page_files(const HtmlPage& page) {
  std::vector<std::string> files;
  for (const HtmlSection& s : page.sections) {
    for (const HtmlBlock& block : s.blocks) {
      if (const auto* f = std::get_if<HtmlFigure>(&block)) {
        files.push_back(f->image);
        if (!f->alternate.empty()) files.push_back(f->alternate);
      }
    }
  }
  return files;
}

}  // namespace scalewall
