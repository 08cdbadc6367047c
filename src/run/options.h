// The options of one `druba verify`, `test` or `replay` run, for every model kind (STYLE.md 10:
// plain structs, no globals). The command line fills them; src/run and the model kinds read them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "abstraction/verdict.h"

namespace druba::run {

enum class Command { kVerify, kTest, kReplay, kCheck };
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
  std::string dump_abstract;
  double time_limit_s = 0;
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
  std::string dot;                      // the abstract states and transitions, for Graphviz
  bool no_trace = false;                // no trace for a violation (saves the backward search)
  bool shortest = false;                // the trace with the fewest statements (breadth-first)
  bool deadlock = false;  // a state where no thread can move and some has not finished violates
  unsigned jobs = 0;      // expansion threads; 0: one per core
  UpperBound upper_bound = UpperBound::kAuto;  // the sandwich proof's O
  double upper_bound_share = 0.125;            // O's share of the exploration's successor calls
  double exhaust_share = 4;  // after a failed closure test: the exact search's share (0: none)
  // CPDS models only.
  std::string init;              // default: the model's path with .init
  std::string spec;              // a .spec file naming the target
  std::string target;            // or the target inline, 'g|t0,t1,...'
  std::uint32_t top = 1;         // K of the top-K abstraction
  std::uint32_t max_stack = 64;  // explicit: a deeper stack ends the search with `unknown`
  // .drb models only.
  std::string threads;                 // "N" (one count) or "N.." (every count from N)
  std::string abstraction;             // which `abstraction` block (default: the first)
  unsigned solver_timeout_ms = 20000;  // per solver query; a timeout is `unknown`
  std::uint32_t max_threads = 8;       // "N..": the largest count the outer loop tries
  std::int64_t max_value = 100;        // explicit: a larger |value| ends it with `unknown`
  std::string certificate;   // verify: write a safe verdict's certificate; check: the one to check
  std::string model_digest;  // set by the front end: ContentDigest of the model's texts
  bool refine = true;        // verify: a failed closure test refines the abstraction (docs/drb.md)
  bool top_given = false;    // check: --top was given, to be compared with the certificate
};

// --jobs: 0 means one expansion thread per core.
unsigned JobsFromOption(unsigned jobs);

}  // namespace druba::run
