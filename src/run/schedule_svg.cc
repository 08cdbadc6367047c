#include "run/schedule_svg.h"

#include <fmt/format.h>
#include <algorithm>
#include <cstdio>

namespace druba::run {
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
  return fmt::format("{:.1f}", v);
}

constexpr const char* kRed = "#d62728";
constexpr const char* kGreen = "#2ca02c";

// The (rounds, delays) plane: rounds to the right, delays downwards.
struct Plane {
  std::uint32_t max_r = 1;
  std::uint32_t max_d = 1;
  double cell = 0;
  double left = 60;
  double top = 70;

  double X(std::uint32_t r) const { return left + cell * r; }
  double Y(std::uint32_t d) const { return top + cell * d; }
};

std::string Header(const Plane& p, const std::string& title, Verdict verdict) {
  const double width = std::max(p.left + p.cell * p.max_r + 40, 520.0);
  const double height = p.top + p.cell * p.max_d + 110;
  std::string svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + Num(width) +
                    "\" height=\"" + Num(height) +
                    "\" font-family=\"sans-serif\" font-size=\"12\">\n";
  svg += "<defs>";
  for (const char* color : {kRed, kGreen}) {
    svg += std::string("<marker id=\"a") + (color == kRed ? "r" : "g") +
           "\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"6\" markerHeight=\"6\" "
           "orient=\"auto\"><path d=\"M0,0 L10,5 L0,10 z\" fill=\"" +
           color + "\"/></marker>";
  }
  svg += "</defs>\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  svg += "<text x=\"" + Num(p.left) + "\" y=\"20\" font-size=\"14\">" + Escape(title) + "</text>\n";
  svg += "<text x=\"" + Num(p.left) +
         "\" y=\"38\">verdict: " + Escape(std::string(VerdictName(verdict))) + "</text>\n";
  return svg;
}

// Grid lines, their numbers (every fifth on a dense grid) and the axis names.
std::string Grid(const Plane& p) {
  std::string svg;
  const std::uint32_t step = p.cell < 14 ? 5 : 1;
  for (std::uint32_t r = 0; r <= p.max_r; ++r) {
    svg += "<line x1=\"" + Num(p.X(r)) + "\" y1=\"" + Num(p.Y(0)) + "\" x2=\"" + Num(p.X(r)) +
           "\" y2=\"" + Num(p.Y(p.max_d)) + "\" stroke=\"#eeeeee\"/>\n";
    if (r % step == 0) {
      svg += "<text x=\"" + Num(p.X(r)) + "\" y=\"" + Num(p.Y(0) - 6) +
             "\" text-anchor=\"middle\">" + std::to_string(r) + "</text>\n";
    }
  }
  for (std::uint32_t d = 0; d <= p.max_d; ++d) {
    svg += "<line x1=\"" + Num(p.X(0)) + "\" y1=\"" + Num(p.Y(d)) + "\" x2=\"" + Num(p.X(p.max_r)) +
           "\" y2=\"" + Num(p.Y(d)) + "\" stroke=\"#eeeeee\"/>\n";
    if (d % step == 0) {
      svg += "<text x=\"" + Num(p.X(0) - 8) + "\" y=\"" + Num(p.Y(d) + 4) +
             "\" text-anchor=\"end\">" + std::to_string(d) + "</text>\n";
    }
  }
  svg += "<text x=\"" + Num(p.X(p.max_r) + 6) + "\" y=\"" + Num(p.Y(0) - 6) + "\">r</text>\n";
  svg += "<text x=\"" + Num(p.X(0) - 8) + "\" y=\"" + Num(p.Y(p.max_d) + 20) +
         "\" text-anchor=\"end\">d</text>\n";
  return svg;
}

// The final plateau: from where the abstract set last grew to where the driver stopped.
std::string Plateau(const Plane& p, const RunResult& result) {
  if (result.verdict != Verdict::kSafe &&
      (result.verdict != Verdict::kUnknown || !result.closure_failure)) {
    return "";
  }
  const Bounds a = result.plateau_start;
  const Bounds b = result.bounds;
  return "<rect x=\"" + Num(p.X(a.rounds)) + "\" y=\"" + Num(p.Y(a.delays)) + "\" width=\"" +
         Num(p.cell * (b.rounds - a.rounds)) + "\" height=\"" +
         Num(p.cell * std::max<std::uint32_t>(b.delays - a.delays, 0)) +
         "\" fill=\"#2ca02c\" fill-opacity=\"0.12\" stroke=\"#2ca02c\" "
         "stroke-dasharray=\"4 3\"/>\n";
}

// One arrow per raise, red where it found new abstract states; `at` ends where the run ended.
std::string Arrows(const Plane& p, const std::vector<RaiseEvent>& schedule, Bounds& at) {
  std::string svg;
  for (const RaiseEvent& e : schedule) {
    if (e.dim == RaiseEvent::Dim::kStart) {
      at = e.after;
      svg += "<circle cx=\"" + Num(p.X(at.rounds)) + "\" cy=\"" + Num(p.Y(at.delays)) +
             "\" r=\"4\" fill=\"black\"><title>start (" + std::to_string(at.rounds) + "," +
             std::to_string(at.delays) + "): " + std::to_string(e.new_abstract) +
             " abstract states</title></circle>\n";
      continue;
    }
    const bool grew = e.new_abstract > 0;
    svg += "<line x1=\"" + Num(p.X(at.rounds)) + "\" y1=\"" + Num(p.Y(at.delays)) + "\" x2=\"" +
           Num(p.X(e.after.rounds)) + "\" y2=\"" + Num(p.Y(e.after.delays)) + "\" stroke=\"" +
           (grew ? kRed : kGreen) + "\" stroke-width=\"2\" marker-end=\"url(#a" +
           (grew ? "r" : "g") + ")\"><title>" +
           (e.dim == RaiseEvent::Dim::kRounds ? "r++" : "d++") + " to (" +
           std::to_string(e.after.rounds) + "," + std::to_string(e.after.delays) +
           "): " + std::to_string(e.new_abstract) + " new abstract states</title></line>\n";
    at = e.after;
  }
  return svg;
}

// Where the run ended (the closure test, the proof, the violation or the stop) and the legend.
std::string EndMark(const Plane& p, const RunResult& result, Bounds at) {
  const std::string mark =
      result.proof == Proof::kSandwich     ? "the upper bound O is reached (up to thread symmetry)"
      : result.proof == Proof::kUpperBound ? "the target lies outside the upper bound O"
      : result.verdict == Verdict::kSafe   ? "closure test passed"
      : result.verdict == Verdict::kViolation ? "violation found"
      : result.closure_failure                ? "closure test failed"
                                              : "stopped: " + result.reason;
  const char* color = result.verdict == Verdict::kSafe ? kGreen : kRed;
  std::string svg = "<circle cx=\"" + Num(p.X(at.rounds)) + "\" cy=\"" + Num(p.Y(at.delays)) +
                    "\" r=\"7\" fill=\"none\" stroke=\"" + color + "\" stroke-width=\"2\"/>\n";
  svg += "<text x=\"" + Num(p.left) + "\" y=\"" + Num(p.Y(p.max_d) + 44) + "\" fill=\"" + color +
         "\">(" + std::to_string(at.rounds) + "," + std::to_string(at.delays) +
         "): " + Escape(mark) + "</text>\n";
  svg += "<text x=\"" + Num(p.left) + "\" y=\"" + Num(p.Y(p.max_d) + 64) +
         "\" fill=\"#555555\">red: the raise found new abstract states; green: none</text>\n";
  svg += "<text x=\"" + Num(p.left) + "\" y=\"" + Num(p.Y(p.max_d) + 80) +
         "\" fill=\"#555555\">shaded: the final plateau, tested for closure</text>\n";
  return svg;
}

}  // namespace

std::string ScheduleSvg(const std::vector<RaiseEvent>& schedule, const RunResult& result,
                        const std::string& title) {
  Plane plane;
  for (const RaiseEvent& e : schedule) {
    plane.max_r = std::max(plane.max_r, e.after.rounds);
    plane.max_d = std::max(plane.max_d, e.after.delays);
  }
  plane.cell = std::clamp(720.0 / std::max(plane.max_r, plane.max_d), 6.0, 48.0);
  Bounds at{0, 0};
  std::string svg = Header(plane, title, result.verdict) + Grid(plane) + Plateau(plane, result);
  svg += Arrows(plane, schedule, at);
  svg += EndMark(plane, result, at);
  svg += "</svg>\n";
  return svg;
}

}  // namespace druba::run

namespace druba::run {
namespace {

// At most `width` characters of `text` (an ellipsis marks a cut).
std::string Fit(const std::string& text, std::size_t width) {
  if (text.size() <= width) return text;
  return text.substr(0, width - 1) + "\u2026";
}

}  // namespace

std::string TraceSvg(const std::vector<TraceLine>& trace, std::uint32_t threads,
                     const std::string& title) {
  constexpr double kLeft = 100;    // the step column
  constexpr double kColumn = 270;  // one column per thread
  constexpr double kRow = 26;
  constexpr double kTop = 96;
  constexpr std::size_t kChars = 42;  // of a statement in its box
  std::size_t rows = 0;
  for (const TraceLine& t : trace) rows += t.kind == TraceStep::Kind::kStep ? 1 : 0;
  const double changes_x = kLeft + kColumn * threads + 10;
  const double width = changes_x + 420;
  const double height = kTop + kRow * static_cast<double>(rows) + 70;
  std::string svg = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" "
      "font-family=\"sans-serif\" font-size=\"11\">\n"
      "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
      "<text x=\"10\" y=\"20\" font-size=\"14\" font-weight=\"bold\">{}</text>\n",
      Num(width), Num(height), Escape(title));
  svg += fmt::format(
      "<text x=\"10\" y=\"{}\" fill=\"#555\">step  r d</text>\n"
      "<text x=\"{}\" y=\"{}\" fill=\"#555\">what changed</text>\n",
      Num(kTop - 26), Num(changes_x), Num(kTop - 26));
  for (std::uint32_t t = 0; t < threads; ++t) {
    const double x = kLeft + kColumn * t + kColumn / 2;
    svg += fmt::format(
        "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" font-weight=\"bold\">T{}</text>\n"
        "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#bbb\" stroke-dasharray=\"4 "
        "3\"/>\n",
        Num(x), Num(kTop - 26), t, Num(x), Num(kTop - 20), Num(x), Num(height - 50));
  }
  svg += fmt::format("<text x=\"10\" y=\"{}\" fill=\"#333\">initial: {}</text>\n", Num(kTop - 44),
                     Escape(Fit(trace.front().state, 160)));
  std::size_t row = 0;
  std::uint32_t folded = 0;
  for (const TraceLine& t : trace) {
    if (t.kind == TraceStep::Kind::kDelay) ++folded;
    if (t.kind != TraceStep::Kind::kStep) continue;
    const double y = kTop + kRow * static_cast<double>(row++);
    const double x = kLeft + kColumn * t.thread + 5;
    const bool fails = !t.failure.empty();
    const std::string delays = folded == 0 ? "" : fmt::format(" (+{})", folded);
    folded = 0;
    svg += fmt::format(
        "<text x=\"10\" y=\"{}\">{}  r{} d{}{}</text>\n"
        "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" rx=\"4\" fill=\"{}\" stroke=\"{}\">"
        "<title>{}</title></rect>\n"
        "<text x=\"{}\" y=\"{}\">{}</text>\n",
        Num(y + 15), row, t.rounds, t.delays, delays, Num(x), Num(y + 2), Num(kColumn - 10),
        Num(kRow - 4), fails ? "#fcdcdc" : "#e8f0fb", fails ? kRed : "#7a9cc6",
        Escape(t.action + (fails ? "  FAILS: " + t.failure : "")), Num(x + 6), Num(y + 15),
        Escape(Fit(t.action, kChars)));
    const std::string changed = fails ? "FAILS: " + t.failure : t.changes;
    svg += fmt::format("<text x=\"{}\" y=\"{}\" fill=\"{}\">{}</text>\n", Num(changes_x),
                       Num(y + 15), fails ? kRed : "#333", Escape(Fit(changed, 64)));
  }
  svg += fmt::format("<text x=\"10\" y=\"{}\" fill=\"#333\">reached: {}</text>\n", Num(height - 30),
                     Escape(Fit(trace.back().state, 160)));
  return svg + "</svg>\n";
}

}  // namespace druba::run
