// What every kind's distributed run shares (src/mpi_front: cpds.cc, drb.cc): the model read at
// every process or at none, the run of `test` (fixed bounds, or the delay budgets in turn as
// druba's iterative deepening) and of `verify`, its outcome as druba's CountRun in the kind's
// words, and the figures of the runs' exchanges as a section of druba's report.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "distributed/comm.h"
#include "distributed/run.h"
#include "mpi_front/kind.h"
#include "run/report.h"
#include "run/run_count.h"

namespace druba::mpi {

// Every process reads the model for itself. When one cannot, every process stops with the first
// one's message (process 0 prints it), so that none waits for the others in a collective.
inline void AgreeRead(const distributed::Comm& comm, const std::string& error) {
  const auto none = static_cast<std::uint64_t>(comm.size());
  const std::uint64_t first =
      comm.Min(error.empty() ? none : static_cast<std::uint64_t>(comm.rank()));
  if (first != none) throw ReadFailed{comm.Broadcast(error, static_cast<int>(first))};
}

// What the distributed runs of a request sent, summed over its runs (thread counts, refinement's
// rounds, delay budgets), and the last run's states per process.
struct Spread {
  std::uint32_t runs = 0;
  std::uint64_t bytes_sent = 0;
  std::uint64_t states_sent = 0;
  std::uint64_t messages = 0;
  std::uint64_t exchanges = 0;
  std::vector<std::uint64_t> states_by_process;

  void Add(const distributed::Outcome& done) {
    ++runs;
    bytes_sent += done.bytes_sent;
    states_sent += done.states_sent;
    messages += done.messages;
    exchanges += done.exchanges;
    states_by_process = done.states_by_process;
  }
  // The report's section, with each process's peak memory (at process 0). Collective.
  run::Section Section(const distributed::Comm& comm) const;
};

// druba's CountRun of a distributed run's outcome (at process 0): its figures set in `out`; the
// kind adds its words (DescribeViolation, the abstract states, a certificate).
void SetFigures(const distributed::Outcome& done, std::uint32_t threads, run::CountRun& out);

// A violation's run in the kind's words (at process 0), and which property it violates, as
// run::RunCount describes it (the trace as found: druba's search for a shorter one is its own).
template <run::Describer D>
void DescribeViolation(const D& kind, const std::vector<TraceStep>& steps, run::CountRun& out) {
  if (steps.empty()) return;
  out.property = kind.PropertyOf(StateView(steps.back().state));
  out.trace = run::DescribeTrace(kind, steps);
  out.trace_found_statements = StatementsIn(steps);
  out.trace_statements = out.trace_found_statements;
  if (out.property == "deadlock") {
    out.result.reason =
        "a reachable state is deadlocked: no thread can move and some thread has not finished";
  }
}

// The request's run: `verify`, or `test` to the request's bounds (without --delays, the delay
// budgets 0, 1, ... in turn up to --max-delays, until one exposes a violation, as druba's
// iterative deepening); then at every process `at_end` with each run's outcome and the run. The
// outcome of the last run, its exchanges added to `spread`.
template <DistributableModel Model, class AtEnd>
distributed::Outcome Execute(distributed::Comm& comm, Model& model,
                             const distributed::Property& property, const Request& request,
                             LimitWatch& limits, Spread& spread, AtEnd&& at_end) {
  const run::RunOptions& o = request.options;
  distributed::Request search = request.search;
  search.exhaust_share = o.exhaust_share;
  const bool verify = o.command == run::Command::kVerify;
  const bool deepen = !verify && !o.delays;
  for (std::uint32_t delays = deepen ? 0 : o.delays.value_or(0);; ++delays) {
    search.bounds = {o.rounds, delays};
    distributed::Run<Model> run(comm, model, property, search, limits);
    distributed::Outcome out = verify ? run.Verify() : run.Test();
    spread.Add(out);
    at_end(out, run);
    if (!deepen) return out;
    if (out.result.verdict == Verdict::kViolation) {
      out.result.reason = fmt::format(
          "smallest delay budget that exposes a violation within {} rounds: {}", o.rounds, delays);
      return out;
    }
    if (out.result.verdict != Verdict::kBounded || delays >= o.max_delays) {
      if (out.result.verdict == Verdict::kBounded) {
        out.result.reason = "no violation within " + Counted(o.rounds, "round") + " and up to " +
                            Counted(o.max_delays, "delay");
      }
      return out;
    }
  }
}

}  // namespace druba::mpi
