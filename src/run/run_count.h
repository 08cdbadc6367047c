// One run of one model at one thread count, for every model kind and mode: builds the driver
// (limits, jobs, progress, the sandwich proof), dispatches the command (verify, test with fixed
// bounds or iterative deepening, explicit search) and describes the outcome for the report, in
// the words of the kind's describer.
#pragma once

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "abstraction/driver.h"
#include "run/abstract_graph.h"
#include "run/options.h"
#include "run/progress.h"
#include "run/report.h"

namespace druba::run {

// How a model kind's states, steps and abstract states read in a report: a state, a step (its
// action, why it fails, what it changed and its JSON fields), an abstract state, an action in the
// abstract graph, and which property a violating state violates ("deadlock", or the kind's own:
// "target", "assertion").
template <class D>
concept Describer = requires(const D& d, StateView state, const TraceStep& step, TraceLine& line,
                             std::uint32_t thread, std::uint32_t action) {
  { d.State(state) } -> std::convertible_to<std::string>;
  d.Step(step, step, line);
  { d.Abstract(state) } -> std::convertible_to<std::string>;
  { d.DotAction(thread, action) } -> std::convertible_to<std::string>;
  { d.PropertyOf(state) } -> std::convertible_to<std::string>;
};

// What a model kind adds to a run beyond its words (Driver: the run's PlateauDriver): the
// property it adds to the abstraction's own (--deadlock), the sandwich proof it offers and the
// name of its relation, the thread symmetry its exact search may reduce by, why explicit search
// must stop at a state, the memory it keeps itself (stacks), and, once the run is over, what it
// keeps of it (`Finish`: figures only it has, a `safe` verdict's certificate, what a later round
// needs). Optional (SearchHandOn): for a kind whose runs come in rounds of one program, the
// search an earlier round hands on.
template <class H, class Driver>
concept KindHooks = requires(const H& h, StateView state, CountRun& out, Driver& driver) {
  h.SetUpProperty(driver);
  { h.Sandwich() } -> std::same_as<std::optional<SandwichSetup>>;
  { h.ExhaustionSymmetry() } -> std::same_as<std::optional<OrbitSetup>>;
  { h.Relation() } -> std::convertible_to<std::string>;
  { h.TooBig(state) } -> std::convertible_to<std::string>;
  { h.ExtraBytes() } -> std::convertible_to<std::size_t>;
  h.Finish(out, driver);
};

// Kind hooks that hand a run's search on to the next round of the same program: `TakeOn` before
// the run, `HandOn` after it (PlateauDriver::Adopt and Release).
template <class H, class Driver>
concept SearchHandOn = requires(const H& h, CountRun& out, Driver& driver) {
  h.TakeOn(driver);
  h.HandOn(out, driver);
};

// An abstraction whose abstract states and actions the report can name.
template <class A>
concept DescribableAbstraction = Abstraction<A> &&
    requires(const A& a, StateView state, std::uint32_t thread, std::uint32_t action) {
  { a.Describe(state) } -> std::convertible_to<std::string>;
  { a.DescribeAction(thread, action) } -> std::convertible_to<std::string>;
};

// A trace's slots in the kind's words.
template <Describer D>
std::vector<TraceLine> DescribeTrace(const D& kind, const std::vector<TraceStep>& steps) {
  std::vector<TraceLine> lines;
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const TraceStep& s = steps[i];
    TraceLine line;
    line.kind = s.kind;
    line.thread = s.thread;
    line.rounds = s.rounds;
    line.delays = s.delays;
    line.state = kind.State(StateView(s.state));
    if (s.kind == TraceStep::Kind::kStep) kind.Step(steps[i - 1], s, line);
    lines.push_back(std::move(line));
  }
  return lines;
}

namespace detail {

template <class Driver, class H>
RunResult Dispatch(Driver& driver, const H& hooks, const RunOptions& options) {
  if (options.command == Command::kTest) {
    return options.delays ? driver.Bounded({options.rounds, *options.delays})
                          : driver.Deepen(options.rounds, options.max_delays);
  }
  if (options.mode == Mode::kExplicit) {
    return driver.Explicit([&hooks](StateView state) { return hooks.TooBig(state); });
  }
  return driver.Verify();
}

// The trace to report: one with the fewest statements of any violating run (breadth-first under
// free scheduling, ShortestTrace) when that search finishes within as many successor calls as
// the run made (at least 2^16, at most 2^22; unbounded but for the limits with --shortest); else
// the trace found, shortened by dropping statements while it still fails (explore/shorten.h).
template <class Driver>
std::vector<TraceStep> ReportedTrace(Driver& driver, const RunOptions& options,
                                     std::uint32_t record, CountRun& out) {
  std::vector<TraceStep> found = driver.Trace(record);
  if (found.empty()) return found;
  out.trace_found_statements = StatementsIn(found);
  // By default as many successor calls as the run made, at least 2^16 and at most 2^22 (the
  // breadth-first search keeps every state it meets: a few hundred MB at most).
  const std::uint64_t budget =
      options.shortest ? std::numeric_limits<std::uint64_t>::max()
                       : std::clamp<std::uint64_t>(out.result.image_calls, std::uint64_t{1} << 16,
                                                   std::uint64_t{1} << 22);
  // Of two traces with as few statements, the one found (its delays within the bounds searched).
  std::vector<TraceStep> trace = driver.ShortestTrace(budget);
  out.trace_fewest = !trace.empty();
  if (trace.empty()) {
    trace = driver.Shorten(found);
    out.trace_search_stopped = options.shortest;
  } else if (StatementsIn(trace) >= out.trace_found_statements) {
    trace = found;
  }
  out.trace_statements = StatementsIn(trace);
  return trace;
}

template <class Driver, class D>
std::vector<TraceLine> Describe(Driver& driver, const D& kind, const RunOptions& options,
                                std::uint32_t record, CountRun& out) {
  const std::vector<TraceStep> steps = ReportedTrace(driver, options, record, out);
  if (!steps.empty()) out.property = kind.PropertyOf(StateView(steps.back().state));
  return DescribeTrace(kind, steps);
}

template <class Driver>
void MemoryFigures(const Driver& driver, const RunOptions& options, std::size_t extra,
                   CountRun& out) {
  if (out.keys > 0) {  // the keys' search alone (not the search over orbits beside it)
    out.bytes_per_key =
        static_cast<double>(driver.MemoryBytes() - driver.OrbitMemoryBytes() + extra) /
        static_cast<double>(out.keys);
  }
  if (options.mode == Mode::kExplicit) return;
  const auto m = driver.explorer().MemoryUse();
  const double keys = std::max<double>(1, static_cast<double>(out.keys));
  const auto per_key = [keys](std::size_t bytes) { return static_cast<double>(bytes) / keys; };
  out.bytes_by_part = {{"states", per_key(m.states)},   {"stacks", per_key(extra)},
                       {"key_index", per_key(m.keys)},  {"records", per_key(m.records)},
                       {"parents", per_key(m.parents)}, {"later_pairs", per_key(m.pairs)},
                       {"frontiers", per_key(m.parked)}};
}

}  // namespace detail

// A failed closure test's break in the kind's words (none without a failure, or when a query was
// undecided: then there is no break to show).
template <Describer D, DescribableAbstraction Abs>
std::optional<ClosureBreak> BreakOf(const D& kind, const Abs& abs,
                                    const std::optional<ClosureFailure>& failure) {
  if (!failure || !failure->undecided.empty()) return std::nullopt;
  std::string action;
  if constexpr (requires { abs.DescribeStep(0U, 0U, StateView(), StateView()); }) {
    action = abs.DescribeStep(failure->thread, failure->action, StateView(failure->from),
                              StateView(failure->to));
  } else {
    action = abs.DescribeAction(failure->thread, failure->action);
  }
  return ClosureBreak{kind.Abstract(StateView(failure->from)), std::move(action),
                      kind.Abstract(StateView(failure->to))};
}

// Whether the report needs every abstract state described (a dump, or a kind that lists them).
inline bool WantsAbstractLines(const RunOptions& options, bool list_abstract) {
  return list_abstract || !options.dump_abstract.empty();
}

// How the front end wants one count's run reported.
struct CountSetup {
  ProgressSink progress;       // receives the progress line (empty: none)
  std::string progress_label;  // before the bounds in that line, e.g. "threads=3 "
  bool list_abstract = false;  // describe every reached abstract state
};

// One run of `model` under `abs`: `kind` describes it, `hooks` add what the kind adds.
template <ExplorableModel Model, DescribableAbstraction Abs, Describer D, class H>
requires KindHooks<H, PlateauDriver<Model, Abs>> CountRun RunCount(Model& model, const Abs& abs,
                                                                   const D& kind, const H& hooks,
                                                                   const RunOptions& options,
                                                                   LimitWatch& limits,
                                                                   const CountSetup& setup) {
  PlateauDriver<Model, Abs> driver(model, abs, &limits, options.mode);
  driver.KeepTrace(!options.no_trace);
  driver.SetExhaustBudget(options.exhaust_share);
  hooks.SetUpProperty(driver);
  driver.SetJobs(JobsFromOption(options.jobs), /*adaptive=*/options.jobs == 0);
  if (options.command == Command::kVerify) {
    if (std::optional<SandwichSetup> sandwich = hooks.Sandwich())
      driver.UseSandwich(std::move(*sandwich));
    if (std::optional<OrbitSetup> orbits = hooks.ExhaustionSymmetry())
      driver.ExhaustUpToSymmetry(std::move(*orbits));
  }
  if constexpr (SearchHandOn<H, PlateauDriver<Model, Abs>>) hooks.TakeOn(driver);
  if (setup.progress) InstallProgress(limits, driver, setup.progress, setup.progress_label);
  CountRun out;
  out.threads = model.num_threads();
  out.result = detail::Dispatch(driver, hooks, options);
  StopProgress(limits);
  const auto& ex = driver.explorer();
  // The Round-Robin search's states, unless another search answered alone (explicit mode).
  out.concrete_states = driver.answered_up_to_symmetry() ? ex.num_states() : driver.num_states();
  out.keys = options.mode == Mode::kExplicit ? driver.num_states() : ex.num_keys();
  out.pareto_pairs = ex.num_records();
  out.stats = ex.stats();
  out.jobs = driver.jobs();
  out.relation = hooks.Relation();
  detail::MemoryFigures(driver, options, hooks.ExtraBytes(), out);
  const StateStore& set = driver.abstract_states();
  out.num_abstract = set.size();
  if (WantsAbstractLines(options, setup.list_abstract)) {
    for (std::uint32_t id = 0; id < set.size(); ++id)
      out.abstract_states.push_back(abs.Describe(set.Get(id)));
    std::sort(out.abstract_states.begin(), out.abstract_states.end());
  }
  out.closure_break = BreakOf(kind, abs, out.result.closure_failure);
  hooks.Finish(out, driver);
  if (out.result.violation_record) {
    out.trace = detail::Describe(driver, kind, options, *out.result.violation_record, out);
    if (out.property == "deadlock") {
      out.result.reason =
          "a reachable state is deadlocked: no thread can move and some thread "
          "has not finished";
    }
  }
  if (!options.dot.empty() && options.mode != Mode::kExplicit) {
    out.dot = AbstractGraphDot(model, abs, ex, set, [&kind](std::uint32_t t, std::uint32_t a) {
      return kind.DotAction(t, a);
    });
  }
  if constexpr (SearchHandOn<H, PlateauDriver<Model, Abs>>) hooks.HandOn(out, driver);
  return out;
}

}  // namespace druba::run
