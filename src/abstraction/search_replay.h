// An earlier round's Round-Robin search, taken on by a later round of the same program (refinement:
// the program and its states are the same, only the abstraction grew), so that the later round
// does not compute again what the earlier one computed.
//
// Why it is exact: a record's counters are those of a run that reaches its state, and the
// explorer keeps, for every run within its bounds, a record of the same key with counters no
// larger (explorer.h). So for any (r,d) within the search's bounds, R(r,d) is the set of stored
// states with a record whose counters are within (r,d). The later round asks for R(b) along its
// own schedule of bounds b; the replay raises the search only where b goes beyond its bounds (the
// tracker held meanwhile), then shows the tracker each stored state with a record within b that it
// has not seen, in record order. The tracker has then seen exactly R(b), as after a search of its
// own with that schedule; once b equals the search's bounds every record is within them and the
// search goes on as usual.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "abstraction/run_result.h"
#include "explore/node.h"

namespace druba {

template <class Search, class Tracker>
class SearchReplay {
 public:
  // `search` has stored what the earlier rounds explored; `tracker` sees nothing of it yet.
  explicit SearchReplay(const Search& search)
      : shown_(search.num_states(), false),
        adopted_records_(static_cast<std::uint32_t>(search.num_records())),
        adopted_calls_(search.stats().image_calls) {}

  // Brings the tracker to R(target) (target at or above the last target in both bounds). False
  // when the search stopped: a limit, or the tracker said stop (a violation).
  bool Advance(Search& search, Tracker& tracker, Bounds target) {
    tracker.Hold(true);
    while (!search.stopped() && !Within(target, search.bounds())) {
      if (target.rounds > search.bounds().rounds) {
        search.RaiseRounds();
      } else {
        search.RaiseDelays();
      }
    }
    tracker.Hold(false);
    bounds_ = target;
    if (search.stopped()) return false;
    const auto records = static_cast<std::uint32_t>(search.num_records());
    for (; scanned_ < records; ++scanned_) pending_.push_back(scanned_);
    shown_.resize(search.num_states(), false);
    std::size_t kept = 0;
    for (std::size_t i = 0; i < pending_.size(); ++i) {
      const std::uint32_t rec = pending_[i];
      const NodeRecord& node = search.record(rec);
      if (shown_[node.state]) continue;
      if (!Dominates(node, target.rounds, target.delays)) {  // beyond the target
        pending_[kept++] = rec;
        continue;
      }
      shown_[node.state] = true;
      ++num_shown_;
      if (rec < adopted_records_) ++replayed_;
      const std::vector<Word> state = search.state(node.state);
      if (!tracker.OnNewState(rec, StateView(state))) {
        search.Halt("listener");
        return false;
      }
    }
    pending_.resize(kept);
    return true;
  }

  // One raise of the run's schedule in `dim` (kStart: R(0,0)).
  bool Step(Search& search, Tracker& tracker, RaiseEvent::Dim dim) {
    Bounds next = bounds_;
    if (dim == RaiseEvent::Dim::kStart) next = Bounds{};
    if (dim == RaiseEvent::Dim::kRounds) ++next.rounds;
    if (dim == RaiseEvent::Dim::kDelays) ++next.delays;
    return Advance(search, tracker, next);
  }

  // The bounds the tracker has seen R of.
  Bounds bounds() const { return bounds_; }
  // Whether the search holds R(bounds()) alone and the tracker has seen all of it: the replay is
  // over.
  bool CaughtUp(const Search& search) const {
    return pending_.empty() && bounds_ == search.bounds();
  }
  // Whether every state the search holds was shown: R(bounds()) is R(search.bounds()).
  bool AllShown(const Search& search) const {
    return pending_.empty() && scanned_ == search.num_records();
  }
  // States shown to the tracker: |R(bounds())|.
  std::size_t num_shown() const { return num_shown_; }
  bool shown(std::uint32_t state) const { return state < shown_.size() && shown_[state]; }
  // Of them, those the earlier rounds had stored (shown without a successor call of this round).
  std::uint64_t replayed() const { return replayed_; }
  // The search's successor calls before this round.
  std::uint64_t adopted_calls() const { return adopted_calls_; }

  static bool Within(Bounds a, Bounds b) { return a.rounds <= b.rounds && a.delays <= b.delays; }

 private:
  std::vector<bool> shown_;             // per stored state: shown to the tracker
  std::vector<std::uint32_t> pending_;  // records, in order, whose state is not shown yet
  std::uint32_t scanned_ = 0;           // records looked at (the rest are newer than pending_)
  std::size_t num_shown_ = 0;
  std::uint64_t replayed_ = 0;
  std::uint32_t adopted_records_;
  std::uint64_t adopted_calls_;
  Bounds bounds_;
};

}  // namespace druba
