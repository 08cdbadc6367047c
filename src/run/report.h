// What a run reports, whatever the model kind: the verdict, one entry per thread count run (the
// last one answers), the trace and the statistics, already described in the kind's words (a
// kind's describer turns states and actions into text). One writer prints it as text and one as
// JSON, and the output files (--dump-abstract, --trace-out, --dot, --schedule-svg) are written
// from it, so every model kind reports the same way.
#pragma once

#include <any>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "abstraction/driver.h"
#include "explore/trace.h"
#include "run/options.h"

namespace druba::run {

// JSON objects keep their fields in the order written: the order is part of the contract.
using Json = nlohmann::ordered_json;

// One slot of a violation's trace.
struct TraceLine {
  TraceStep::Kind kind = TraceStep::Kind::kInitial;
  std::uint32_t thread = 0;
  std::uint32_t rounds = 0;  // counters after the slot
  std::uint32_t delays = 0;
  std::string state;             // the program state after the slot
  std::string action;            // a step: its rule or statement and its place in the source
  std::string failure;           // a failing step: why it fails
  std::string changes;           // a step: what it changed, e.g. " shared=1 T0=2"
  Json fields = Json::object();  // a step's fields in the JSON trace, in the kind's words
};

// A reached abstract state, an action and its abstract successor that was not reached.
struct ClosureBreak {
  std::string from;
  std::string action;
  std::string to;
};

struct SolverFigures {
  std::uint64_t queries = 0;
  double seconds = 0;
};

// One thread count's run.
struct CountRun {
  std::uint32_t threads = 0;
  RunResult result;
  std::size_t concrete_states = 0;
  std::size_t keys = 0;
  std::size_t pareto_pairs = 0;
  ExploreStats stats;
  Json bytes_by_part;  // bytes per key of each part of the search (null: none was run)
  double bytes_per_key = 0;
  unsigned jobs = 1;
  std::size_t num_abstract = 0;
  std::vector<std::string> abstract_states;  // described and sorted, when the report needs them
  std::any kept;  // what the model kind keeps of the run for itself (read by that kind only)
  std::optional<ClosureBreak> closure_break;
  std::vector<std::string> closure_breaks;  // every break the kind listed (at most 20)
  std::vector<std::string> disrespecting;   // the actions that disrespect the abstraction
  std::size_t num_actions = 0;              // all actions, when the kind classifies them
  std::optional<SolverFigures> solver;      // when an SMT solver decided the abstraction
  std::vector<TraceLine> trace;
  std::size_t trace_found_statements = 0;  // in the run the search found, before shortening
  std::size_t trace_statements = 0;        // in the trace reported
  bool trace_fewest = false;  // no violating run has fewer statements (breadth-first search)
  bool trace_search_stopped = false;  // --shortest: a limit stopped the search for the fewest
  std::string property;     // which property the violation violates ("deadlock", "assertion", ...)
  std::string dot;          // --dot (empty: too many abstract states, or no bounded search)
  std::string certificate;  // --certificate: the certificate of a `safe` (empty: none)
  std::string certificate_note;  // why a `safe` got no certificate
  std::string relation;  // how O resolved what the abstraction hides ("joint", "all-SAT", ...)
  std::vector<std::vector<std::uint32_t>> symmetry_classes;
};

// A part of the report that only some runs have, in the kind's words (the .drb kind: the closure
// test across thread counts, refinement): a JSON field and its lines in the text report.
struct Section {
  // kWhy: with the verdict, among the lines that say why it holds; kDetail: after the trace and
  // the closure break.
  enum class Place { kWhy, kDetail };
  std::string key;  // the JSON field
  Json json;
  std::string text;  // whole lines
  Place place = Place::kDetail;
};

struct Report {
  std::string program = "druba";  // which program ran it ("druba-mpi"), in the text's first line
  RunOptions options;             // the request, as the kind ran it
  std::string subject;  // the kind's words after the model's name, e.g. "3 threads, top-1 ..."
  Json header = Json::object();        // the kind's fields after "model" (at least "threads")
  bool per_count = false;              // a text line per thread count run
  bool list_abstract = false;          // the abstract states in the text and JSON reports
  Json trace_header = Json::object();  // the kind's fields in a --trace-out file
  Verdict verdict = Verdict::kUnknown;
  std::string reason;
  std::vector<CountRun> runs;     // one per thread count run; the last answers
  std::vector<Section> sections;  // in the order the JSON report lists them, after "runs"
  // The actions that disrespect the abstraction as the kind lists them in place of the last run's
  // (the .drb kind for every count: those across thread counts), and the heading's words.
  std::optional<std::vector<std::string>> disrespecting;
  std::string disrespecting_scope;  // e.g. " across thread counts"
  // The run's bounds and statistics, where the run is not what answers (invariants from finite
  // instances: the run at the smallest count, for the report), e.g. " of the run at 2 threads".
  std::string run_scope;
  std::string next;  // an `unknown`: what to do next, when the kind knows better
  // How many abstract states and actions the text lists (the rest: --dump-abstract, --json); a
  // kind whose sections are long lists fewer, so that the report stays a screenful.
  std::size_t listed = 10;
  std::size_t warnings = 0;
  double time_s = 0;
  std::string svg_title;

  const CountRun& last() const { return runs.back(); }
};

std::string JsonReport(const Report& report);
// A closure break as the reports show it: a line of text after `indent`, and a JSON object.
std::string BreakText(const ClosureBreak& b, const char* indent);
Json BreakJson(const ClosureBreak& b);
// The `next:` line of an `unknown` at a closure break.
std::string NextAfterClosureBreak();
std::string TextReport(const Report& report);
// The trace as text, as the report shows it: one line per statement (its number, thread, round,
// the delays before it, the statement and what it changed); the slots of delays and of threads
// that could not move are folded into the columns.
std::string TraceText(const std::vector<TraceLine>& trace);
// The line before the trace: how many statements, whether they are the fewest of any violating
// run, and how long the run found was.
std::string TraceHeadline(const CountRun& run);
// The --trace-out file: the model, the kind's header fields and the slots.
std::string TraceFile(const Report& report);
// The first line of a --dump-abstract file that is not exactly alpha(R) (empty when it is).
std::string DumpHeader(Verdict verdict, const std::string& reason, Proof proof);
// --dump-abstract, --trace-out, --dot and --schedule-svg, each written whole or not at all.
// Returns warnings for the user (a graph too large to draw).
std::vector<std::string> WriteOutputFiles(const Report& report);

}  // namespace druba::run
