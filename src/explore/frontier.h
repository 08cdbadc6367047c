// The moves the bounds stopped, and the order in which the search takes moves.
//
// Round frontier: the moves (packed record and kind) that the round bound stopped, in the order
// they were parked; a round raise resumes all of them. Delay frontier: kept implicitly, it is the
// delay move of every record with as many delays as the bound, and those were all stored since
// the delay raise before began (a record's delay move is parked exactly when it has as many
// delays as the bound), so a delay raise scans the records stored since then.
//
// Layers: moves are taken layer by layer in increasing depth. A layer is every move of the nodes
// of one depth (those the layer before stored, and the parked moves a raise resumed at that
// depth), taken in increasing order of their successors' delays. A layer's successors all have
// one depth, so a key's successors in it have the same rounds, and they are stored in increasing
// order of delays; and a raise only adds pairs whose raised counter is above that of every kept
// pair. So no pair ever dominates a pair kept before it: a key's pairs only grow (ParetoIndex
// relies on it), and no moves are spent on a key found again later with a smaller pair. (Were it
// broken, the search would still be exact, only some moves would be taken twice.)
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <vector>

#include "common/resources.h"
#include "explore/chunked_vector.h"
#include "explore/node.h"

namespace druba {

class Frontier {
 public:
  Frontier(const ChunkedVector<NodeRecord>& records, std::uint32_t n) : records_(records), n_(n) {}

  // Moves the round bound stopped, and how many delay moves the delay bound stopped.
  void ParkRounds(std::span<const std::uint32_t> moves) {
    round_parked_.insert(round_parked_.end(), moves.begin(), moves.end());
  }
  void CountDelaysParked(std::size_t count) { delay_parked_ += count; }
  std::size_t parked_moves() const { return round_parked_.size() + delay_parked_; }
  std::size_t round_parked_moves() const { return round_parked_.size(); }

  // A round raise resumes the round frontier (moves of records of one depth: the last of the old
  // bound).
  void ResumeRounds() {
    pending_.swap(round_parked_);
    std::vector<std::uint32_t>().swap(round_parked_);
    pos_ = 0;
  }
  // A delay raise from `old_bound` resumes the delay moves of the records with that many delays.
  void ResumeDelays(std::uint32_t old_bound) {
    scan_ = {watermark_, records_.size(), old_bound};
    watermark_ = records_.size();
    delay_parked_ = 0;
    pos_ = 0;
  }

  // The next layer into `layer`: the moves of the least depth among the records `next` (stored by
  // the layer before, in increasing delays; cleared when taken) and the resumed moves, in
  // increasing delays of their successors. False when nothing is left.
  bool NextLayer(std::vector<std::uint32_t>& next, std::vector<std::uint32_t>& layer) {
    constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();
    const std::optional<std::uint32_t> resumed = PeekResumed();
    if (next.empty() && !resumed) return false;
    const std::uint32_t from_records = next.empty() ? kNone : Depth(records_[next.front()]);
    const std::uint32_t from_pending = resumed ? Depth(records_[MoveRecord(*resumed)]) : kNone;
    const std::uint32_t depth = std::min(from_records, from_pending);
    const std::size_t records = from_records == depth ? next.size() : 0;
    resumed_.clear();
    for (auto move = resumed; move && Depth(records_[MoveRecord(*move)]) == depth;
         move = PeekResumed()) {
      resumed_.push_back(*move);
      TakeResumed();
    }
    if (resumed_.empty()) {
      StepsThenDelays(std::span<const std::uint32_t>(next).first(records), layer);
    } else {
      // Move i: the step (even i) or delay (odd i) of the i/2-th record, then the resumed ones.
      const auto move = [&](std::size_t i) {
        return i < 2 * records ? PackMove(next[i / 2], static_cast<MoveKind>(i & 1))
                               : resumed_[i - 2 * records];
      };
      const std::size_t count = 2 * records + resumed_.size();
      layer.resize(count);
      CountingSort(
          count, move,
          [this](std::uint32_t m) { return records_[MoveRecord(m)].delays + MoveKindOf(m); },
          layer);
    }
    if (records > 0) next.clear();
    return true;
  }

  // Between raises the resumed moves are gone: give their memory back.
  void EndRaise() {
    std::vector<std::uint32_t>().swap(pending_);
    std::vector<std::uint32_t>().swap(resumed_);
    scan_ = {};
    pos_ = 0;
  }

  std::size_t MemoryBytes() const {
    return (round_parked_.capacity() + pending_.capacity() + resumed_.capacity()) *
           sizeof(std::uint32_t);
  }
  // What the round frontier would allocate at once if it grew now (when it is close to it).
  Growth NextGrowth() const {
    if (round_parked_.size() * 10 < round_parked_.capacity() * 9) return {};
    return {static_cast<double>(round_parked_.capacity() * 2 * sizeof(std::uint32_t)), 0};
  }

  // Writes item(0), ..., item(count-1) to `out` (sized count) sorted stably by key(item), a small
  // number (the delays of a move's successor).
  template <class Item, class Key>
  static void CountingSort(std::size_t count, Item&& item, Key&& key,
                           std::vector<std::uint32_t>& out) {
    if (count == 0) return;
    std::uint32_t lo = std::numeric_limits<std::uint32_t>::max();
    std::uint32_t hi = 0;
    for (std::size_t i = 0; i < count; ++i) {
      lo = std::min(lo, key(item(i)));
      hi = std::max(hi, key(item(i)));
    }
    std::vector<std::size_t> start(std::size_t{hi - lo} + 2, 0);
    for (std::size_t i = 0; i < count; ++i) ++start[key(item(i)) - lo + 1];
    for (std::size_t k = 1; k < start.size(); ++k) start[k] += start[k - 1];
    for (std::size_t i = 0; i < count; ++i) {
      const std::uint32_t it = item(i);
      out[start[key(it) - lo]++] = it;
    }
  }

 private:
  // The number of moves from an initial node (depth 0: rounds 0, finder n-1) to a node, up to a
  // constant: each move passes the turn on, and a round begins with thread 0.
  std::uint32_t Depth(const NodeRecord& r) const { return r.rounds * n_ + r.finder; }

  // Only the records the layer before stored, which came in increasing order of delays: per run
  // of equal delays e, their steps (successors with e delays), then their delays (e+1).
  void StepsThenDelays(std::span<const std::uint32_t> records,
                       std::vector<std::uint32_t>& layer) const {
    layer.clear();
    for (std::size_t i = 0; i < records.size();) {
      std::size_t j = i + 1;
      const std::uint32_t delays = records_[records[i]].delays;
      while (j < records.size() && records_[records[j]].delays == delays) ++j;
      for (std::size_t k = i; k < j; ++k) layer.push_back(PackMove(records[k], kStep));
      for (std::size_t k = i; k < j; ++k) layer.push_back(PackMove(records[k], kDelay));
      i = j;
    }
  }

  // The moves a raise resumes come from pending_ (the round frontier) or from scan_ (records of
  // the delay frontier), in order of depth: moves were parked layer by layer in increasing depth
  // within each raise, the round frontier holds moves of one depth only, and after a delay raise
  // only round raises add to the delay frontier, with deeper records (so record ids are in order
  // of depth too). (Were they not, the search would still be exact: see the header.)
  struct DelayScan {
    std::size_t next = 0;  // record id
    std::size_t end = 0;
    std::uint32_t delays = 0;
  };
  // The next resumed move, if any, without taking it.
  std::optional<std::uint32_t> PeekResumed() {
    if (pos_ < pending_.size()) return pending_[pos_];
    while (scan_.next < scan_.end && records_[scan_.next].delays != scan_.delays) ++scan_.next;
    if (scan_.next < scan_.end) return PackMove(static_cast<std::uint32_t>(scan_.next), kDelay);
    return std::nullopt;
  }
  void TakeResumed() {
    if (pos_ < pending_.size()) {
      ++pos_;
    } else {
      ++scan_.next;
    }
  }

  const ChunkedVector<NodeRecord>& records_;
  std::uint32_t n_;
  std::vector<std::uint32_t> round_parked_;  // packed moves the round bound stopped
  std::size_t watermark_ = 0;                // the delay frontier's records are stored from here on
  std::size_t delay_parked_ = 0;             // how many delay moves are on the delay frontier
  std::vector<std::uint32_t> pending_;       // the round frontier a raise resumes, by depth
  std::size_t pos_ = 0;                      // in pending_
  DelayScan scan_;
  std::vector<std::uint32_t> resumed_;  // the resumed moves of the layer being taken
};

}  // namespace druba
