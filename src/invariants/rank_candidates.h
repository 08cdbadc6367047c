// Rank candidates read off the finite instances (docs/drb.md, "Counting threads by rank"): for a
// per-thread number x that is no id and a set S of at most two named locations, "at most
// n + c - j threads are past level j", past meaning x[i] > j, or x[i] >= j at no location of S:
//   forall j: count(i: x[i] > j || x[i] >= j && pc[i] != a && pc[i] != b) <= count(i: true) - 1 - j
// for the offsets c = 0 and c = -1 that no explored state contradicts at any j below its count;
// of those, only the ones no other implies (a subset of S with as small an offset; any offset
// -1, which at level j - 1 bounds the threads at or past j by n - j, implies every offset 0).
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <absl/container/flat_hash_set.h>

#include "explore/state_store.h"
#include "interp/model.h"
#include "interp/program.h"
#include "invariants/instance_candidates.h"

namespace druba::predabs {

class RankReader {
 public:
  RankReader(const Program& program, const Places& places);
  // What state `s` of `model` shows.
  void Record(const IntModel& model, StateView s);
  // The rank candidates nothing recorded contradicts, in `.drb` text.
  void Candidates(std::vector<std::string>& out) const;

 private:
  const Program& program_;
  Places places_;
  std::vector<std::uint32_t> numbers_;            // per-thread numbers that hold no ids
  std::vector<std::vector<std::uint32_t>> sets_;  // sets of named locations, at most two each
  std::vector<std::int64_t> excess_;              // [w * sets + k]: the most count - (n - j) seen
  std::vector<bool> seen_any_;                    // [w]: some state recorded
  // [w * kRankCounts + n]: the largest value at n threads (n + 1 for any beyond n).
  static constexpr std::uint32_t kRankCounts = 16;
  std::vector<std::optional<std::int64_t>> largest_;
  std::vector<bool> beyond_;  // [w]: a value beyond the count seen (or a count past kRankCounts)
  // Whether number w is a level: its largest value, at most the count, grows with the count one
  // for one at two counts or more (a filter lock's level at n threads reaches n - 2). Rank
  // candidates are read for levels only: over a flag or a ticket they cost a count more to
  // explore (ordered_invariant.h) and prove nothing the other candidates do not.
  bool Level(std::size_t w) const;
  absl::flat_hash_set<std::vector<std::int64_t>> done_;  // projections already recorded
};

// The thread an entry names (`victim[lv]`, an id-holding per-thread array at an index the thread
// holds): where a thread stands at a, the thread its entry names, when another, stands at the
// locations seen there, with the same index where it always had it:
//   forall j: pc[self] != wait || j == self || victim[lv] != j || pc[j] == wait && lv[j] == lv
class EntryReader {
 public:
  explicit EntryReader(const Program& program);
  void Record(const IntModel& model, StateView s);
  void Candidates(const Places& places, std::vector<std::string>& out) const;

 private:
  struct Seen {
    std::vector<bool> at;   // the named thread's locations
    bool same = true;       // it held the same index
    bool any = false;       // another thread named
    bool recorded = false;  // a thread here with its index in range
    bool thread = true;     // the entry always named a thread
  };
  const Program& program_;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> reads_;  // (entry, index) locals
  std::vector<Seen> seen_;                                      // [read * pcs + location]
  std::size_t pcs_;
};

// Two per-thread numbers a constant apart at a location (`pc[self] != wait || level[self] ==
// lv[self]`, `pc[self] != raise || level[self] == lv[self] - 1`): the one difference seen there.
class DifferenceReader {
 public:
  explicit DifferenceReader(const Program& program);
  void Record(const IntModel& model, StateView s);
  // `live`: none where either number is dead (drb::LiveToAnyThread; the second stage's).
  void Candidates(const Places& places, std::vector<std::string>& out, bool live = false) const;

 private:
  struct Seen {
    std::int64_t difference = 0;
    bool any = false;
    bool one = true;  // a single difference
  };
  const Program& program_;
  std::vector<std::uint32_t> numbers_;  // per-thread numbers that hold no ids (indices too)
  std::vector<Seen> seen_;              // [(x * numbers + y) * pcs + location], x < y
  std::size_t pcs_;
  std::vector<std::vector<bool>> live_;  // [pc][local]: drb::LiveToAnyThread
};

}  // namespace druba::predabs
