// Tests of scalewall/present/html_page.h: the page's structure, escaping and self-check.
#include "scalewall/present/html_page.h"

#include <gtest/gtest.h>

#include <string>

namespace scalewall {
namespace {

HtmlPage SamplePage() {
  HtmlPage page;
  page.title = "scalewall report <demo>";
  page.intro = {"Figures & tables."};
  HtmlSection model;
  model.heading = "Scenario a";
  model.kind = Kind::kModel;
  model.id = "scenario-a";
  model.blocks.push_back(HtmlParagraph{"A \"quoted\" paragraph."});
  HtmlFigure figure;
  figure.kind = Kind::kModel;
  figure.image = "a-scaling.svg";
  figure.alternate = "a-scaling.png";
  figure.caption = "Speedup against ranks.";
  figure.width_px = 960;
  figure.height_px = 600;
  model.blocks.push_back(figure);
  Table t{"rows",
          {{"ranks", "ranks", Unit::kCount},
           {"step_s", "step", Unit::kSeconds},
           {"binding", "binding", Unit::kText}},
          {},
          {}};
  t.add_row({std::int64_t{8}, 0.79, std::string("bandwidth")}, "knee");
  t.add_row({std::int64_t{64}, 0.589, std::string("bandwidth")});
  model.blocks.push_back(HtmlTable{"The curve", t});
  model.blocks.push_back(
      HtmlFields{{{"k", "knee", Unit::kCount, Value{}, "not reached"},
                  {"e", "efficiency", Unit::kFraction, 0.384, ""}}});
  page.sections.push_back(model);
  HtmlSection measured;
  measured.heading = "Measurements";
  measured.kind = Kind::kMeasurement;
  measured.id = "measurements";
  HtmlFigure wait;
  wait.kind = Kind::kMeasurement;
  wait.image = "m-wait.svg";
  wait.caption = "Per-rank wait.";
  measured.blocks.push_back(wait);
  page.sections.push_back(measured);
  page.footer = "scalewall 0.1.0";
  return page;
}

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(HtmlPage, Escape) {
  EXPECT_EQ(html_escape("a < b & c > \"d\" 'e'"),
            "a &lt; b &amp; c &gt; &quot;d&quot; &#39;e&#39;");
  EXPECT_EQ(html_escape(""), "");
}

// A scenario's name reaches the page: no raw NUL, CR, ESC or other control character, and no
// byte that is not UTF-8 on a page that says it is; tab, line feed and UTF-8 stay.
TEST(HtmlPage, EscapesControlCharactersAndBytesThatAreNotUtf8) {
  EXPECT_EQ(html_escape(std::string("a\0b\rc\x1b[2Jd\x7f", 11)), "a\\x00b\\rc\\x1b[2Jd\\x7f");
  EXPECT_EQ(html_escape("t\tn\n \u00e9\u4e2d"), "t\tn\n \u00e9\u4e2d");
  EXPECT_EQ(html_escape("x\u0085\u009by"), "x\\u0085\\u009by");
  EXPECT_EQ(html_escape("\xff<"), "\uFFFD&lt;");
  HtmlPage page = SamplePage();
  page.title = std::string("job\0\r\x1b]52;c;cHduZWQ=\x07", 21);
  const std::string html = render_html(page);
  for (const char c : html) {
    const auto byte = static_cast<unsigned char>(c);
    EXPECT_FALSE((byte < 0x20 && c != '\n' && c != '\t') || byte == 0x7F) << int{byte};
  }
  EXPECT_TRUE(Contains(html, "<h1>job\\x00\\r\\x1b]52;c;cHduZWQ=\\x07</h1>")) << html;
}

TEST(HtmlPage, SelfContainedStructure) {
  const std::string html = render_html(SamplePage());
  EXPECT_EQ(html.rfind("<!DOCTYPE html>\n<html lang=\"en\">", 0), 0u);
  EXPECT_TRUE(Contains(html, "<meta charset=\"utf-8\">"));
  EXPECT_TRUE(Contains(html, "<title>scalewall report &lt;demo&gt;</title>"));
  EXPECT_TRUE(Contains(html, "<style>"));
  // Nothing outside the page: no external scripts, styles or images.
  EXPECT_FALSE(Contains(html, "http://"));
  EXPECT_FALSE(Contains(html, "https://"));
  EXPECT_FALSE(Contains(html, "<link"));
  EXPECT_FALSE(Contains(html, "<script src"));
  EXPECT_TRUE(Contains(html, "<p>Figures &amp; tables.</p>"));
  EXPECT_TRUE(Contains(html, "<a href=\"#scenario-a\">Scenario a</a>"));
  EXPECT_TRUE(Contains(html, "<section id=\"scenario-a\" class=\"model\">"));
  EXPECT_TRUE(Contains(html, "<span class=\"kind model\">MODEL</span> Scenario a</h2>"));
  EXPECT_TRUE(Contains(html, "<span class=\"kind measurement\">MEASUREMENT</span> Measurements"));
  EXPECT_TRUE(Contains(html, "<p>A &quot;quoted&quot; paragraph.</p>"));
  EXPECT_TRUE(Contains(html, "<footer>scalewall 0.1.0</footer>"));
  EXPECT_TRUE(html.ends_with("</html>\n"));
}

TEST(HtmlPage, FiguresAreLabelledWithTheirKind) {
  const std::string html = render_html(SamplePage());
  EXPECT_TRUE(Contains(html,
                       "<img src=\"a-scaling.svg\" alt=\"Speedup against ranks.\" width=\"960\" "
                       "height=\"600\">"));
  EXPECT_TRUE(Contains(html,
                       "<figcaption><span class=\"kind model\">MODEL</span> Speedup against "
                       "ranks. (<a href=\"a-scaling.png\">a-scaling.png</a>)</figcaption>"));
  EXPECT_TRUE(Contains(html, "<img src=\"m-wait.svg\" alt=\"Per-rank wait.\">"));
  EXPECT_TRUE(Contains(
      html, "<figcaption><span class=\"kind measurement\">MEASUREMENT</span> Per-rank "
            "wait.</figcaption>"));
}

TEST(HtmlPage, TablesShowCellsAsTheTableFormatDoes) {
  const std::string html = render_html(SamplePage());
  EXPECT_TRUE(Contains(html, "<caption>The curve</caption>"));
  EXPECT_TRUE(Contains(
      html, "<thead><tr><th>ranks</th><th>step</th><th>binding</th><th></th></tr></thead>"));
  EXPECT_TRUE(Contains(html,
                       "<tr class=\"marked\"><td>8</td><td>790 ms</td><td "
                       "class=\"text\">bandwidth</td><td class=\"text\">knee</td></tr>"));
  EXPECT_TRUE(Contains(html,
                       "<tr><td>64</td><td>589 ms</td><td class=\"text\">bandwidth</td><td "
                       "class=\"text\"></td></tr>"));
  EXPECT_TRUE(Contains(html, "<dt>knee</dt><dd>not reached</dd>"));
  EXPECT_TRUE(Contains(html, "<dt>efficiency</dt><dd>38.4%</dd>"));
}

TEST(HtmlPage, SelfCheckScript) {
  const std::string html = render_html(SamplePage());
  EXPECT_TRUE(Contains(html, "<pre id=\"selfcheck\" hidden>pending</pre>"));
  EXPECT_TRUE(Contains(html, "data-natural-width"));
  EXPECT_TRUE(Contains(html, "naturalWidth"));
  EXPECT_TRUE(Contains(html, "window.addEventListener('error'"));
  EXPECT_LT(html.find("id=\"selfcheck\""), html.find("<script>"));
}

TEST(HtmlPage, ListsItsFiles) {
  const auto files = html_page_files(SamplePage());
  ASSERT_EQ(files.size(), 3u);
  EXPECT_EQ(files[0], "a-scaling.svg");
  EXPECT_EQ(files[1], "a-scaling.png");
  EXPECT_EQ(files[2], "m-wait.svg");
}

}  // namespace
}  // namespace scalewall
