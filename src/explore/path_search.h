// A path to a stored record found without parent links, one move back at a time: a record whose
// move gives exactly the later record's state and counters (the record it was made from is one,
// and records are never removed, so there always is one). Each move back scans the records once
// and calls the successor function on those with the right finder and counters: a trace costs at
// most about one more pass over the search's work, and no memory while searching.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

#include "explore/chunked_vector.h"
#include "explore/model.h"
#include "explore/node.h"
#include "explore/state_store.h"

namespace druba {

// The record before `later` on some path: one whose move gives exactly `later`'s state and
// counters, or none (which would be a bug).
template <ExplorableModel Model>
std::optional<std::uint32_t> RecordBefore(Model& model, const ChunkedVector<NodeRecord>& records,
                                          const PackedStateStore& states, const NodeRecord& later) {
  const std::uint32_t n = model.num_threads();
  const std::uint32_t finder = later.finder == 0 ? n - 1 : later.finder - 1;
  const std::uint32_t rounds = later.rounds - (later.finder == 0 ? 1 : 0);
  std::vector<Word> target(states.width());
  std::vector<Word> from(states.width());
  states.Get(later.state, target.data());
  for (std::uint32_t rec = 0; rec < records.size(); ++rec) {
    const NodeRecord& r = records[rec];
    if (r.finder != finder || r.rounds != rounds) continue;
    if (r.delays + 1 == later.delays && r.state == later.state) return rec;  // a delay
    if (r.delays != later.delays) continue;
    // A step, or a stutter.
    states.Get(r.state, from.data());
    bool any = false;
    bool hit = false;
    model.ForEachSuccessor(
        StateView(from), later.finder, [&](std::uint32_t /*action*/, StateView succ) {
          any = true;
          hit = hit || std::equal(succ.begin(), succ.end(), target.begin(), target.end());
        });
    if (hit || (!any && r.state == later.state)) return rec;
  }
  return std::nullopt;
}

// The records from an initial node (rounds 0, finder n-1) to `id`, in path order. Empty only if
// some move back is not found, which would be a bug.
template <ExplorableModel Model>
std::vector<std::uint32_t> SearchPathBack(Model& model, const ChunkedVector<NodeRecord>& records,
                                          const PackedStateStore& states, std::uint32_t id) {
  const std::uint32_t n = model.num_threads();
  std::vector<std::uint32_t> path{id};
  for (std::uint32_t at = id; !(records[at].rounds == 0 && records[at].finder == n - 1);) {
    const std::optional<std::uint32_t> found = RecordBefore(model, records, states, records[at]);
    if (!found) return {};
    path.push_back(*found);
    at = *found;
  }
  return {path.rbegin(), path.rend()};
}

}  // namespace druba
