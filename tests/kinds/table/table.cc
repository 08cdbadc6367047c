#include "table.h"

#include <charconv>
#include <sstream>
#include <string>

#include <CLI/CLI.hpp>

#include "common/diagnostics.h"
#include "common/files.h"
#include "run/run_count.h"

namespace druba::table {
namespace {

using testing::FixedGraph;

// Reads one line's words, each with its column.
struct Word_ {
  std::string text;
  std::uint32_t column;
};

std::vector<Word_> Words(std::string_view line) {
  std::vector<Word_> out;
  std::size_t i = 0;
  while (i < line.size()) {
    if (line[i] == '#') break;
    if (line[i] == ' ' || line[i] == '\t' || line[i] == '\r') {
      ++i;
      continue;
    }
    const std::size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t' && line[i] != '\r') ++i;
    out.push_back(
        {std::string(line.substr(start, i - start)), static_cast<std::uint32_t>(start + 1)});
  }
  return out;
}

Word Number(const Word_& w, const std::string& file, std::uint32_t line, Word below) {
  Word value = 0;
  const auto [end, error] = std::from_chars(w.text.data(), w.text.data() + w.text.size(), value);
  if (error != std::errc() || end != w.text.data() + w.text.size() || value >= below) {
    throw InputError({file, line, w.column}, "expected a number below " + std::to_string(below) +
                                                 ", found '" + w.text + "'");
  }
  return value;
}

// The table in the report's words.
struct TableDescriber {
  const Table& table;
  const TableAbstraction& abs;

  std::string State(StateView s) const {
    std::string out = std::to_string(s[0]) + "|";
    for (std::size_t t = 1; t < s.size(); ++t) out += (t == 1 ? "" : ",") + std::to_string(s[t]);
    return out;
  }
  void Step(const TraceStep& /*prev*/, const TraceStep& cur, run::TraceLine& line) const {
    line.action = abs.DescribeAction(cur.thread, cur.action);
    line.changes = " " + State(StateView(cur.state));
    line.fields = {{"edge", cur.action}};
  }
  std::string Abstract(StateView a) const { return abs.Describe(a); }
  std::string DotAction(std::uint32_t t, std::uint32_t a) const {
    return "T" + std::to_string(t) + " " + abs.DescribeAction(t, a);
  }
  std::string PropertyOf(StateView /*state*/) const { return "bad shared value"; }
};
static_assert(run::Describer<TableDescriber>);

// A table adds nothing to a run: no sandwich proof, no certificate, no state too big.
struct TableHooks {
  template <class Driver>
  void SetUpProperty(Driver& /*driver*/) const {}
  std::optional<SandwichSetup> Sandwich() const { return std::nullopt; }
  std::optional<OrbitSetup> ExhaustionSymmetry() const { return std::nullopt; }
  std::string Relation() const { return "none"; }
  std::string TooBig(StateView /*state*/) const { return {}; }
  std::size_t ExtraBytes() const { return 0; }
  template <class Driver>
  void Finish(run::CountRun& /*out*/, Driver& /*driver*/) const {}
};

}  // namespace

Table ParseTable(std::string_view text, const std::string& file) {
  Table table;
  std::uint32_t line_number = 0;
  std::istringstream in{std::string(text)};
  bool init = false;
  for (std::string line; std::getline(in, line);) {
    ++line_number;
    const std::vector<Word_> w = Words(line);
    if (w.empty()) continue;
    const auto want = [&](std::size_t n) {
      if (w.size() != n) {
        throw InputError({file, line_number, w[0].column},
                         "'" + w[0].text + "' takes " + std::to_string(n - 1) + " fields");
      }
    };
    if (w[0].text == "threads") {
      want(2);
      table.threads = static_cast<std::uint32_t>(Number(w[1], file, line_number, 9));
    } else if (w[0].text == "init") {
      want(3);
      table.init_shared = Number(w[1], file, line_number, 1U << 16);
      table.init_local = Number(w[2], file, line_number, kLocals);
      init = true;
    } else if (w[0].text == "edge") {
      want(6);
      if (w[3].text != "->") throw InputError({file, line_number, w[3].column}, "expected '->'");
      const Word shared =
          w[1].text == "*" ? FixedGraph::kAny : Number(w[1], file, line_number, 1U << 16);
      table.edges.push_back({shared, Number(w[2], file, line_number, kLocals),
                             Number(w[4], file, line_number, 1U << 16),
                             Number(w[5], file, line_number, kLocals)});
    } else if (w[0].text == "bad") {
      want(2);
      table.bad.push_back(Number(w[1], file, line_number, 1U << 16));
    } else {
      throw InputError({file, line_number, w[0].column}, "unknown item '" + w[0].text + "'");
    }
  }
  if (table.threads == 0 || !init) {
    throw InputError({file, line_number, 1}, "a table needs 'threads N' (1 to 8) and 'init S L'");
  }
  return table;
}

FixedGraph MakeModel(const Table& table) {
  return FixedGraph(table.init_shared, std::vector<Word>(table.threads, table.init_local),
                    std::vector<std::vector<FixedGraph::Edge>>(table.threads, table.edges));
}

std::string TableAbstraction::Describe(StateView a) const {
  std::string out = "shared=" + std::to_string(a[0]) + " at";
  for (Word l = 0; l < kLocals; ++l) {
    if (a[1 + l] != 0) out += " " + std::to_string(l) + ":" + std::to_string(a[1 + l]);
  }
  return out;
}

std::string TableAbstraction::DescribeAction(std::uint32_t /*thread*/, std::uint32_t action) const {
  const FixedGraph::Edge& e = table_.edges[action];
  const std::string from =
      e.shared == FixedGraph::kAny ? std::string("*") : std::to_string(e.shared);
  const std::string to =
      e.shared == FixedGraph::kAny ? std::string("*") : std::to_string(e.to_shared);
  return "edge " + std::to_string(action) + ": " + from + " " + std::to_string(e.local) + " -> " +
         to + " " + std::to_string(e.to_local);
}

void TableFrontEnd::AddOptions(run::Command command, CLI::Option_group& group) {
  if (command == run::Command::kVerify || command == run::Command::kTest) {
    group.add_option("--bad", options_.bad, "more shared values that violate");
  }
}

std::string TableFrontEnd::CheckUsage(const run::RunOptions& request) const {
  if (request.upper_bound == run::UpperBound::kJoint ||
      request.upper_bound == run::UpperBound::kStatic) {
    return "--upper-bound: a transition table offers no upper bound";
  }
  return {};
}

run::Outcome TableFrontEnd::Run(const run::RunOptions& request, const run::Sinks& sinks) {
  if (request.command == run::Command::kReplay || request.command == run::Command::kCheck) {
    throw InputError(
        {request.model, 0, 0},
        "a transition table has no " +
            std::string(request.command == run::Command::kReplay ? "replay" : "certificates"));
  }
  Table table = ParseTable(ReadFile(request.model), request.model);
  table.bad.insert(table.bad.end(), options_.bad.begin(), options_.bad.end());
  FixedGraph model = MakeModel(table);
  const TableAbstraction abs(table);
  LimitWatch limits({request.time_limit_s, request.memory_limit_mb}, sinks.interrupted);
  run::Report report;
  report.options = request;
  report.runs.push_back(run::RunCount(model, abs, TableDescriber{table, abs}, TableHooks{}, request,
                                      limits, {sinks.progress, "", true}));
  report.subject =
      std::to_string(table.threads) + " threads, " + std::to_string(table.edges.size()) + " edges";
  report.header = {{"threads", table.threads}, {"edges", table.edges.size()}};
  report.list_abstract = true;
  report.verdict = report.last().result.verdict;
  report.reason = report.last().result.reason;
  report.time_s = report.last().result.time_s;
  report.svg_title = "druba " + request.model;
  return {run::Outcome::Kind::kReport, std::move(report), "", {}};
}

}  // namespace druba::table
