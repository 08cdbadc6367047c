// The kind-free request of one `druba verify`, `test`, `replay` or `check` run (STYLE.md 10:
// plain structs, no globals): the command line parses into it, and src/run and every model kind
// read it. A kind's own options are a struct of the kind's (cpds/options.h, strategy/options.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "abstraction/verdict.h"

namespace druba::run {

enum class Command { kVerify, kTest, kReplay, kCheck };

// The time limit of a run whose command line gives none: a run ends, `unknown` at worst, in a time
// a person waits for (--time-limit 0: no limit).
inline constexpr double kDefaultTimeLimitS = 300;
// The sandwich proof's upper bound O (--upper-bound): kAuto is joint for CPDS and off for .drb;
// kStatic, a relation that ignores which states are reached, is for CPDS only.
enum class UpperBound { kAuto, kJoint, kStatic, kOff };

// "verify", "test", "replay", "check" (as the command line and the reports spell them).
std::string_view CommandName(Command command);
// "auto", "joint", "static", "off".
std::string_view UpperBoundName(UpperBound bound);

struct RunOptions {
  std::string model;
  bool json = false;
  bool time_limit_default = false;  // time_limit_s is the command line's default, not the user's
  std::string json_out;  // also write the JSON report to this file (the text goes to stdout)
  std::string dump_abstract;
  double time_limit_s = 0;  // 0: none
  double memory_limit_mb = 0;
  Mode mode = Mode::kDruba;
  Command command = Command::kVerify;
  std::uint32_t rounds = 20;            // `test` only
  std::optional<std::uint32_t> delays;  // `test`: none means iterative deepening
  std::uint32_t max_delays = 10;        // `test` with iterative deepening
  std::string replay_trace;             // `replay`: the trace file to re-execute
  bool progress = false;                // a progress line on stderr about once a second
  std::string trace_out;                // write a violation's trace as JSON
  std::string schedule_svg;             // draw the driver's path through the (r, d) plane
  std::string trace_svg;                // draw a violation's trace as a sequence chart
  std::string dot;                      // the abstract states and transitions, for Graphviz
  bool no_trace = false;                // no trace for a violation (saves the backward search)
  bool shortest = false;                // the trace with the fewest statements (breadth-first)
  bool deadlock = false;  // a state where no thread can move and some has not finished violates
  unsigned jobs = 0;      // expansion threads; 0: one per core
  UpperBound upper_bound = UpperBound::kAuto;  // the sandwich proof's O
  double exhaust_share = 4;  // after a failed closure test: the exact search's share (0: none)
  // With interchangeable threads, searches over one state per orbit (CPDS: the sandwich proof's
  // lower bound; .drb at one count: the exact search after a failed closure test).
  bool symmetric_search = true;
  std::string certificate;  // verify: write a safe verdict's certificate; check: the one to check
};

// --jobs: 0 means one expansion thread per core.
unsigned JobsFromOption(unsigned jobs);

}  // namespace druba::run
