#include "cli/schedule_svg.h"

#include <algorithm>
#include <cstdio>

namespace druba::cli {
namespace {

std::string Escape(const std::string& text) {
  std::string out;
  for (const char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string Num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

}  // namespace

std::string ScheduleSvg(const std::vector<RaiseEvent>& schedule, const RunResult& result,
                        const std::string& title) {
  std::uint32_t max_r = 1;
  std::uint32_t max_d = 1;
  for (const RaiseEvent& e : schedule) {
    max_r = std::max(max_r, e.after.rounds);
    max_d = std::max(max_d, e.after.delays);
  }
  const double cell = std::clamp(720.0 / std::max(max_r, max_d), 6.0, 48.0);
  const double left = 60;
  const double top = 70;
  const double width = std::max(left + cell * max_r + 40, 520.0);
  const double height = top + cell * max_d + 110;
  const auto x = [&](std::uint32_t r) { return left + cell * r; };
  const auto y = [&](std::uint32_t d) { return top + cell * d; };
  const char* red = "#d62728";
  const char* green = "#2ca02c";

  std::string svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + Num(width) +
                    "\" height=\"" + Num(height) +
                    "\" font-family=\"sans-serif\" font-size=\"12\">\n";
  svg += "<defs>";
  for (const char* color : {red, green}) {
    svg += std::string("<marker id=\"a") + (color == red ? "r" : "g") +
           "\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"6\" markerHeight=\"6\" "
           "orient=\"auto\"><path d=\"M0,0 L10,5 L0,10 z\" fill=\"" +
           color + "\"/></marker>";
  }
  svg += "</defs>\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  svg += "<text x=\"" + Num(left) + "\" y=\"20\" font-size=\"14\">" + Escape(title) + "</text>\n";
  svg += "<text x=\"" + Num(left) +
         "\" y=\"38\">verdict: " + Escape(std::string(VerdictName(result.verdict))) + "</text>\n";
  // Grid and axes: rounds to the right, delays downwards.
  const std::uint32_t step = cell < 14 ? 5 : 1;
  for (std::uint32_t r = 0; r <= max_r; ++r) {
    svg += "<line x1=\"" + Num(x(r)) + "\" y1=\"" + Num(y(0)) + "\" x2=\"" + Num(x(r)) +
           "\" y2=\"" + Num(y(max_d)) + "\" stroke=\"#eeeeee\"/>\n";
    if (r % step == 0) {
      svg += "<text x=\"" + Num(x(r)) + "\" y=\"" + Num(y(0) - 6) + "\" text-anchor=\"middle\">" +
             std::to_string(r) + "</text>\n";
    }
  }
  for (std::uint32_t d = 0; d <= max_d; ++d) {
    svg += "<line x1=\"" + Num(x(0)) + "\" y1=\"" + Num(y(d)) + "\" x2=\"" + Num(x(max_r)) +
           "\" y2=\"" + Num(y(d)) + "\" stroke=\"#eeeeee\"/>\n";
    if (d % step == 0) {
      svg += "<text x=\"" + Num(x(0) - 8) + "\" y=\"" + Num(y(d) + 4) + "\" text-anchor=\"end\">" +
             std::to_string(d) + "</text>\n";
    }
  }
  svg += "<text x=\"" + Num(x(max_r) + 6) + "\" y=\"" + Num(y(0) - 6) + "\">r</text>\n";
  svg += "<text x=\"" + Num(x(0) - 8) + "\" y=\"" + Num(y(max_d) + 20) +
         "\" text-anchor=\"end\">d</text>\n";
  // The final plateau: from where the abstract set last grew to where the driver stopped.
  if (result.verdict == Verdict::kSafe ||
      (result.verdict == Verdict::kUnknown && result.closure_failure)) {
    const Bounds a = result.plateau_start;
    const Bounds b = result.bounds;
    svg +=
        "<rect x=\"" + Num(x(a.rounds)) + "\" y=\"" + Num(y(a.delays)) + "\" width=\"" +
        Num(cell * (b.rounds - a.rounds)) + "\" height=\"" +
        Num(cell * std::max<std::uint32_t>(b.delays - a.delays, 0)) +
        "\" fill=\"#2ca02c\" fill-opacity=\"0.12\" stroke=\"#2ca02c\" stroke-dasharray=\"4 3\"/>\n";
  }
  // One arrow per raise.
  Bounds at{0, 0};
  for (const RaiseEvent& e : schedule) {
    if (e.dim == RaiseEvent::Dim::kStart) {
      at = e.after;
      svg += "<circle cx=\"" + Num(x(at.rounds)) + "\" cy=\"" + Num(y(at.delays)) +
             "\" r=\"4\" fill=\"black\"><title>start (" + std::to_string(at.rounds) + "," +
             std::to_string(at.delays) + "): " + std::to_string(e.new_abstract) +
             " abstract states</title></circle>\n";
      continue;
    }
    const bool grew = e.new_abstract > 0;
    svg += "<line x1=\"" + Num(x(at.rounds)) + "\" y1=\"" + Num(y(at.delays)) + "\" x2=\"" +
           Num(x(e.after.rounds)) + "\" y2=\"" + Num(y(e.after.delays)) + "\" stroke=\"" +
           (grew ? red : green) + "\" stroke-width=\"2\" marker-end=\"url(#a" + (grew ? "r" : "g") +
           ")\"><title>" + (e.dim == RaiseEvent::Dim::kRounds ? "r++" : "d++") + " to (" +
           std::to_string(e.after.rounds) + "," + std::to_string(e.after.delays) +
           "): " + std::to_string(e.new_abstract) + " new abstract states</title></line>\n";
    at = e.after;
  }
  // Where the run ended: the closure test, or the violation, or the stop.
  const std::string mark = result.proof == Proof::kSandwich ? "the upper bound O is reached (up to "
                                                              "thread symmetry)"
                           : result.proof == Proof::kUpperBound    ? "the target lies outside the "
                                                                     "upper bound O"
                           : result.verdict == Verdict::kSafe      ? "closure test passed"
                           : result.verdict == Verdict::kViolation ? "violation found"
                           : result.closure_failure                ? "closure test failed"
                                                                   : "stopped: " + result.reason;
  const char* mark_color = result.verdict == Verdict::kSafe ? green : red;
  svg += "<circle cx=\"" + Num(x(at.rounds)) + "\" cy=\"" + Num(y(at.delays)) +
         "\" r=\"7\" fill=\"none\" stroke=\"" + mark_color + "\" stroke-width=\"2\"/>\n";
  svg += "<text x=\"" + Num(left) + "\" y=\"" + Num(y(max_d) + 44) + "\" fill=\"" + mark_color +
         "\">(" + std::to_string(at.rounds) + "," + std::to_string(at.delays) +
         "): " + Escape(mark) + "</text>\n";
  svg += "<text x=\"" + Num(left) + "\" y=\"" + Num(y(max_d) + 64) +
         "\" fill=\"#555555\">red: the raise found new abstract states; green: none</text>\n";
  svg += "<text x=\"" + Num(left) + "\" y=\"" + Num(y(max_d) + 80) +
         "\" fill=\"#555555\">shaded: the final plateau, tested for closure</text>\n";
  svg += "</svg>\n";
  return svg;
}

}  // namespace druba::cli
