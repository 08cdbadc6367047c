// Each model kind as druba-mpi sees it, as src/front is each kind as druba sees it: the options,
// the outcome in a kind's words, and the steps every kind's run takes (reading the model at every
// process, the run, a violation described, the abstract states written as druba's
// --dump-abstract writes them). One file per kind: cpds.cc and drb.cc; mpi/main.cc reads the
// command line and prints the report.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/files.h"
#include "common/resources.h"
#include "cpds/options.h"
#include "distributed/run.h"
#include "explore/portable.h"
#include "run/options.h"
#include "run/report.h"
#include "run/run_count.h"
#include "strategy/options.h"

namespace druba::mpi {

struct Options {
  run::Command command = run::Command::kVerify;  // test or verify
  std::string model;
  distributed::Request request;
  cpds::CpdsOptions cpds;
  std::string threads;      // .drb: N (empty: the file's count)
  std::string abstraction;  // .drb verify: which abstraction block (empty: the first)
  bool refine = true;       // .drb verify: druba's refinement after an `unknown` round
  predabs::HornUse horn = predabs::HornUse::kBoth;  // .drb verify: the Horn solver's use
  std::uint32_t max_threads = 8;                    // .drb verify --threads N..: the last count
  unsigned solver_timeout_ms = 20000;               // .drb verify: per solver query
  bool deadlock = false;
  bool json = false;
  std::string trace_out;
  std::string certificate;    // verify: where a safe verdict's certificate goes
  std::string dump_abstract;  // verify: where the reached abstract states go
  run::UpperBound upper_bound = run::UpperBound::kAuto;  // verify: the sandwich proof's O
  bool symmetric_search = true;                          // verify: its search over orbits
  bool progress = false;
  double progress_every_s = 2;  // --progress: seconds between lines
  double time_limit_s = 0;
  double memory_limit_mb = 0;
};

// The model could not be read (at some process): the message, the same at every process.
struct ReadFailed {
  std::string message;
};

struct Described {
  distributed::Outcome outcome;
  std::uint32_t threads = 0;
  std::string subject;
  std::string property;               // which property the violation violates
  std::vector<run::TraceLine> trace;  // its run, in the kind's words
  nlohmann::json trace_header;        // the kind's fields of a --trace-out file
  std::string certificate_note;       // why a safe verdict's certificate was not written
  std::string output_error;           // an output file process 0 could not write (file: why)
  // .drb verify, at process 0: druba's report, which main prints as druba does.
  std::optional<run::Report> report;
};

Described RunCpds(distributed::Comm& comm, const Options& o, LimitWatch& limits);
Described RunDrb(distributed::Comm& comm, const Options& o, LimitWatch& limits);

// Every process reads the model for itself. When one cannot, every process stops with the first
// one's message (process 0 prints it), so that none waits for the others in a collective.
inline void AgreeRead(const distributed::Comm& comm, const std::string& error) {
  const auto none = static_cast<std::uint64_t>(comm.size());
  const std::uint64_t first =
      comm.Min(error.empty() ? none : static_cast<std::uint64_t>(comm.rank()));
  if (first != none) throw ReadFailed{comm.Broadcast(error, static_cast<int>(first))};
}

// A violation's run in the kind's words (at process 0), and which property it violates.
template <run::Describer D>
void DescribeViolation(const D& kind, Described& out) {
  const std::vector<TraceStep>& steps = out.outcome.trace;
  if (steps.empty()) return;
  out.property = kind.PropertyOf(StateView(steps.back().state));
  out.outcome.result.reason = "a reachable state violates the property: " + out.property;
  out.trace = run::DescribeTrace(kind, steps);
}

// The run; then at every process, `at_end` with the outcome and the run.
template <DistributableModel Model, class AtEnd>
distributed::Outcome Execute(distributed::Comm& comm, Model& model,
                             const distributed::Property& property, const Options& o,
                             LimitWatch& limits, AtEnd&& at_end) {
  distributed::Run<Model> run(comm, model, property, o.request, limits);
  distributed::Outcome out = o.command == run::Command::kVerify ? run.Verify() : run.Test();
  at_end(out, run);
  return out;
}

// At process 0: --dump-abstract's file as druba writes it (sorted, after the header that says
// what is not exact), each abstract state of `set` in the abstraction's words.
template <class Abs>
void DumpAbstract(const std::string& path, const distributed::Outcome& done, const Abs& abs,
                  const StateStore& set) {
  std::vector<std::string> lines;
  for (std::uint32_t id = 0; id < set.size(); ++id) lines.push_back(abs.Describe(set.Get(id)));
  std::sort(lines.begin(), lines.end());
  std::string text = run::DumpHeader(done.result.verdict, done.result.reason, done.result.proof);
  for (const std::string& line : lines) text += line + "\n";
  WriteFileAtomically(path, text);
}

}  // namespace druba::mpi
