// One distributed run of `druba-mpi test`, for any model kind: the search at every process
// (distributed/search.h), the property checked on each state a process stores, and the figures
// and the verdict gathered at process 0. Kind-free: main.cc hands over the model, the property
// and the words of the kind.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "abstraction/verdict.h"
#include "common/resources.h"
#include "distributed/comm.h"
#include "distributed/search.h"
#include "explore/state_store.h"
#include "explore/trace.h"

namespace druba::mpi {

struct Request {
  std::string model;
  Bounds bounds;
  bool stepwise =
      false;  // reach the bounds one raise at a time (as verify does) instead of at once
  std::size_t batch_bytes = distributed::kDefaultBatchBytes;
};

// What a kind checks of each state its process stores: whether it violates the property, and
// (optionally) its abstract state, whose words are self-contained.
struct Property {
  std::function<bool(StateView)> violates;
  std::size_t abstract_width = 0;  // 0: no abstract states counted
  std::function<void(StateView, std::span<Word>)> abstract;
};

// The run's outcome, complete at process 0.
struct Outcome {
  Verdict verdict = Verdict::kBounded;
  std::string reason;
  Bounds bounds;
  std::uint64_t states = 0;
  std::uint64_t keys = 0;
  std::uint64_t pairs = 0;
  std::optional<std::uint64_t> abstract_states;
  std::uint64_t image_calls = 0;
  std::uint64_t transitions = 0;
  std::uint64_t bytes_sent = 0;
  std::uint64_t messages = 0;
  std::uint64_t exchanges = 0;
  std::vector<std::uint64_t> states_by_process;
  std::vector<double> peak_rss_mb_by_process;
  // A violation's run, slot by slot, from an initial state (at process 0).
  std::vector<TraceStep> trace;
  double time_s = 0;
};

namespace detail {

// Hears each state this process stores: checks the property, keeps its abstract state.
struct Listener {
  const Property* property;
  std::optional<StateStore> abstract;
  std::vector<Word> scratch;
  std::optional<std::uint32_t> violation;  // the record of the first violating state

  explicit Listener(const Property& p) : property(&p), scratch(p.abstract_width) {
    if (p.abstract_width > 0) abstract.emplace(p.abstract_width);
  }
  bool OnNewState(std::uint32_t record, StateView state) {
    if (abstract) {
      property->abstract(state, scratch);
      abstract->FindOrInsert(StateView(scratch));
    }
    if (!property->violates(state)) return true;
    violation = record;
    return false;
  }
};

template <class Search>
bool Reach(Search& search, const Request& request) {
  if (!request.stepwise) return search.Start(request.bounds);
  bool going = search.Start({std::min<std::uint32_t>(request.bounds.rounds, 1), 0});
  while (going && search.bounds() != request.bounds) {
    if (search.bounds().rounds < request.bounds.rounds) going = search.RaiseRounds();
    if (going && search.bounds().delays < request.bounds.delays) going = search.RaiseDelays();
  }
  return going;
}

// The abstract states of every process, counted once.
inline std::uint64_t CountAbstract(const distributed::Comm& comm, const StateStore& mine,
                                   std::size_t width) {
  std::vector<std::uint8_t> bytes;
  for (std::uint32_t id = 0; id < mine.size(); ++id) {
    for (const Word w : mine.Get(id)) PutVarint(w, bytes);
  }
  StateStore all(width);
  std::vector<Word> words(width);
  for (const std::vector<std::uint8_t>& part : comm.Gather(bytes)) {
    std::size_t at = 0;
    std::uint64_t value = 0;
    while (at < part.size()) {
      for (Word& w : words) {
        GetVarint(part, at, value);
        w = static_cast<Word>(value);
      }
      all.FindOrInsert(StateView(words));
    }
  }
  return all.size();
}

}  // namespace detail

// Runs the search to request.bounds at every process; the figures are complete at process 0.
// Collective.
template <DistributableModel Model>
Outcome Run(distributed::Comm& comm, Model& model, const Property& property, const Request& request,
            LimitWatch& limits) {
  detail::Listener listener(property);
  distributed::DistributedSearch<Model, detail::Listener> search(comm, model, listener, &limits,
                                                                 request.batch_bytes);
  Outcome out;
  const bool done = detail::Reach(search, request);
  out.bounds = search.bounds();
  // Which process found a violation: the first of them reports it, with the run that led there.
  const auto none = static_cast<std::uint64_t>(comm.size());
  const std::uint64_t finder =
      comm.Min(listener.violation ? static_cast<std::uint64_t>(comm.rank()) : none);
  if (finder != none) {
    const int holder = static_cast<int>(finder);
    const std::string record =
        comm.Broadcast(comm.rank() == holder ? std::to_string(*listener.violation) : "", holder);
    out.verdict = Verdict::kViolation;
    out.trace = search.PathTo(holder, static_cast<std::uint32_t>(std::stoul(record)));
    if (comm.rank() == 0) NameSlots(model, out.trace);
  } else if (!done) {
    out.verdict = Verdict::kUnknown;
    out.reason = "the search stopped: " + search.stop_reason();
  } else {
    out.reason = "no violation within " + std::to_string(out.bounds.rounds) +
                 (out.bounds.rounds == 1 ? " round and " : " rounds and ") +
                 std::to_string(out.bounds.delays) +
                 (out.bounds.delays == 1 ? " delay" : " delays");
  }
  out.states = comm.Sum(search.num_states());
  out.keys = comm.Sum(search.num_keys());
  out.pairs = comm.Sum(search.num_records());
  out.image_calls = comm.Sum(search.stats().image_calls);
  out.transitions = comm.Sum(search.stats().transitions);
  out.bytes_sent = comm.Sum(comm.bytes_sent());
  out.messages = comm.Sum(comm.messages_sent());
  out.exchanges = comm.exchanges();
  if (property.abstract_width > 0) {
    out.abstract_states = detail::CountAbstract(comm, *listener.abstract, property.abstract_width);
  }
  std::vector<std::uint8_t> figures;
  PutVarint(search.num_states(), figures);
  PutVarint(static_cast<std::uint64_t>(PeakRssMb() * 1024), figures);
  for (const std::vector<std::uint8_t>& part : comm.Gather(figures)) {
    std::size_t at = 0;
    std::uint64_t states = 0;
    std::uint64_t rss_kb = 0;
    GetVarint(part, at, states);
    GetVarint(part, at, rss_kb);
    out.states_by_process.push_back(states);
    out.peak_rss_mb_by_process.push_back(static_cast<double>(rss_kb) / 1024);
  }
  out.time_s = limits.clock().Seconds();
  return out;
}

}  // namespace druba::mpi
