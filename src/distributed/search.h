// R(r,d) computed by several processes (DESIGN.md sections 2 and 3; the single-process engine is
// explore/explorer.h). Each program state belongs to one process, the one its self-contained
// bytes (explore/portable.h) hash to; the owner stores it, its keys (state, finder) and their
// Pareto-minimal (rounds, delays) pairs, exactly as one process would, and expands them.
//
// The search goes in supersteps by depth. A record's depth (the slots taken to reach it) follows
// from its pair and finder: (rounds - 1) * n + finder + 1, and 0 for an initial state. Every
// process expands its records of the smallest depth any process has left, in batches: each batch's
// successors are sent to their owners in one all-to-all exchange whose size per process is bounded
// (`batch_bytes`, so memory stays flat however large a layer is), and the owners insert them. Two
// pairs of one key at different depths have different rounds; pairs of one depth arrive in the
// same layer, and one with fewer delays than a kept pair of that depth lowers it in place before
// it is expanded. So, as in one process, a kept pair is never dominated later: the stored pairs
// are the Pareto-minimal ones, and the counts of states, keys and pairs are the single-process
// search's (tests/distributed). Raises resume the parked moves, as Explorer's do.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <xxhash.h>

#include "common/resources.h"
#include "distributed/comm.h"
#include "distributed/progress.h"
#include "distributed/request.h"
#include "explore/model.h"
#include "explore/node.h"
#include "explore/portable.h"
#include "explore/state_store.h"
#include "explore/trace.h"

namespace druba::distributed {

// The process of `processes` that owns a state written as `bytes` (explore/portable.h).
inline int OwnerOf(std::span<const std::uint8_t> bytes, int processes) {
  return static_cast<int>(XXH3_64bits(bytes.data(), bytes.size()) %
                          static_cast<std::uint64_t>(processes));
}

template <DistributableModel Model, ExploreListener Listener>
class DistributedSearch {
 public:
  DistributedSearch(Comm& comm, Model& model, Listener& listener, LimitWatch* limits = nullptr,
                    std::size_t batch_bytes = kDefaultBatchBytes)
      : comm_(&comm),
        model_(&model),
        listener_(&listener),
        limits_(limits),
        n_(model.num_threads()),
        batch_bytes_(batch_bytes),
        states_(model.state_width()),
        outboxes_(static_cast<std::size_t>(comm.size())),
        scratch_(model.state_width()) {
    if (n_ > kMaxThreads || n_ == 0)
      Stop("not between 1 and " + std::to_string(kMaxThreads) + " threads");
  }
  DistributedSearch(const DistributedSearch&) = delete;
  DistributedSearch& operator=(const DistributedSearch&) = delete;

  // Reports progress when `ticker` finds it due (null: never). Call it at every process.
  void SetProgress(ProgressTicker* ticker) { ticker_ = ticker; }

  // R(bounds) from the initial states. Collective; false when the search was stopped.
  bool Start(Bounds bounds) {
    if (bounds.rounds > kMaxBound || bounds.delays > kMaxBound) {
      Stop("bound above " + std::to_string(kMaxBound));
    }
    bounds_ = bounds;
    if (!stopped_) {
      model_->ForEachInitial([&](StateView s) {
        encoded_.clear();
        model_->Encode(s, encoded_);
        if (Owner(encoded_) == comm_->rank()) AddState(s, n_ - 1, 0, 0, {kNoParent, kNoParent});
      });
    }
    return Drain();
  }
  // R(r,d) -> R(r+1,d), resuming the moves the old round bound parked. Collective.
  bool RaiseRounds() { return Raise(bounds_.rounds, round_parked_); }
  // R(r,d) -> R(r,d+1), resuming the moves the old delay bound parked. Collective.
  bool RaiseDelays() { return Raise(bounds_.delays, delay_parked_); }

  Bounds bounds() const { return bounds_; }
  // Whether some process has moves that a larger round (delay) bound would allow. Collective.
  bool RoundMovesParked() const { return comm_->Max(round_parked_.empty() ? 0 : 1) != 0; }
  bool DelayMovesParked() const { return comm_->Max(delay_parked_.empty() ? 0 : 1) != 0; }
  // This process's states, each once.
  template <class F>
  void ForEachState(F&& f) const {
    std::vector<Word> state(model_->state_width());
    for (std::uint32_t id = 0; id < states_.size(); ++id) {
      states_.Get(id, state.data());
      f(StateView(state));
    }
  }
  bool stopped() const { return stopped_; }
  const std::string& stop_reason() const { return stop_reason_; }
  // This process's part.
  std::size_t num_states() const { return states_.size(); }
  std::size_t num_keys() const { return num_keys_; }
  std::size_t num_records() const { return records_.size(); }
  const ExploreStats& stats() const { return stats_; }
  std::uint64_t states_sent() const { return states_sent_; }  // successors sent to their owners
  std::vector<Word> state(std::uint32_t id) const { return states_.Get(id); }
  const NodeRecord& record(std::uint32_t id) const { return records_[id]; }

  // The slots from an initial state to record `record` of process `holder`, walked back from
  // process to process, at process 0 (the states read into its tables; NameSlots names the
  // slots); elsewhere empty. Collective.
  std::vector<TraceStep> PathTo(int holder, std::uint32_t record) {
    std::vector<TraceStep> path;
    Parent at{static_cast<std::uint32_t>(holder), record};
    std::vector<std::uint8_t> bytes;
    while (at.rank != kNoParent) {
      bytes.clear();
      if (static_cast<std::uint32_t>(comm_->rank()) == at.rank) {
        const NodeRecord& node = records_[at.record];
        for (const std::uint64_t v :
             {std::uint64_t{parents_[at.record].rank}, std::uint64_t{parents_[at.record].record},
              std::uint64_t{node.finder}, std::uint64_t{node.rounds}, std::uint64_t{node.delays}}) {
          PutVarint(v, bytes);
        }
        model_->Encode(StateView(states_.Get(node.state)), bytes);
      }
      const std::string slot =
          comm_->Broadcast(std::string(bytes.begin(), bytes.end()), static_cast<int>(at.rank));
      const std::span<const std::uint8_t> read(reinterpret_cast<const std::uint8_t*>(slot.data()),
                                               slot.size());
      std::size_t pos = 0;
      std::array<std::uint64_t, 5> v{};
      for (std::uint64_t& x : v) GetVarint(read, pos, x);
      at = {static_cast<std::uint32_t>(v[0]), static_cast<std::uint32_t>(v[1])};
      if (comm_->rank() != 0) continue;
      TraceStep step;
      step.thread = static_cast<std::uint32_t>(v[2]);
      step.rounds = static_cast<std::uint32_t>(v[3]);
      step.delays = static_cast<std::uint32_t>(v[4]);
      if (!model_->Decode(read.subspan(pos), step.state)) {
        throw std::runtime_error("a trace's state could not be read back");
      }
      path.push_back(std::move(step));
    }
    std::reverse(path.begin(), path.end());
    return path;
  }

  // At process 0, each process's states and resident memory (MB; `peak`: its high-water mark).
  // Collective.
  void ProcessFigures(bool peak, std::vector<std::uint64_t>& states,
                      std::vector<double>& memory_mb) const {
    GatherFigures(*comm_, states_.size(), peak, states, memory_mb);
  }

  // The process that owns a state, from its bytes.
  int Owner(std::span<const std::uint8_t> bytes) const { return OwnerOf(bytes, comm_->size()); }

 private:
  static constexpr std::uint64_t kNoDepth = std::numeric_limits<std::uint64_t>::max();

  // Where a record was reached from: a record of a process (kNoParent twice: an initial state).
  struct Parent {
    std::uint32_t rank;
    std::uint32_t record;
  };
  Parent Here(std::uint32_t record) const {
    return {static_cast<std::uint32_t>(comm_->rank()), record};
  }

  std::uint64_t Depth(std::uint32_t rounds, std::uint32_t finder) const {
    return rounds == 0 ? 0 : (std::uint64_t{rounds} - 1) * n_ + finder + 1;
  }

  void Stop(std::string reason) {
    if (!stopped_) {
      stopped_ = true;
      stop_reason_ = std::move(reason);
    }
  }

  bool Raise(std::uint32_t& bound, std::vector<std::uint32_t>& parked) {
    if (!stopped_ && bound >= kMaxBound) Stop("bound above " + std::to_string(kMaxBound));
    if (!stopped_) {
      ++bound;
      std::vector<std::uint32_t> resumed;
      resumed.swap(parked);
      for (const std::uint32_t move : resumed) {
        const NodeRecord& node = records_[MoveRecord(move)];
        pending_[Depth(node.rounds, node.finder)].push_back(move);
      }
    }
    return Drain();
  }

  // Whether some process has stopped; if so every process stops, with the reason of the first.
  bool AnyStopped() {
    std::string reason = stop_reason_;
    if (!comm_->AnyStopped(stopped_, reason)) return false;
    Stop(reason);
    return true;
  }

  // Takes the layers, smallest depth first, until none is left at any process.
  bool Drain() {
    std::vector<std::uint32_t> moves;
    while (!AnyStopped()) {
      const std::uint64_t mine = pending_.empty() ? kNoDepth : pending_.begin()->first;
      const std::uint64_t depth = comm_->Min(mine);
      if (depth == kNoDepth) return true;
      moves.clear();
      if (mine == depth) {
        moves.swap(pending_.begin()->second);
        pending_.erase(pending_.begin());
      }
      std::size_t next = 0;
      std::uint64_t flags = 0;
      do {
        for (std::vector<std::uint8_t>& box : outboxes_) box.clear();
        std::size_t queued = 0;
        while (next < moves.size() && queued < batch_bytes_ && !stopped_) {
          queued += Move(moves[next++]);
        }
        Receive(comm_->Exchange(outboxes_));
        // One reduction says whether any process has moves left in this layer and whether
        // process 0 wants a progress report.
        const bool more = next < moves.size() && !stopped_;
        const bool due = ticker_ != nullptr && ticker_->Due(*comm_);
        flags = comm_->Max((more ? 1U : 0U) | (due ? 2U : 0U));
        if ((flags & 2U) != 0) {
          ticker_->Report(
              *comm_,
              "r=" + std::to_string(bounds_.rounds) + " d=" + std::to_string(bounds_.delays),
              "states", states_.size());
        }
      } while ((flags & 1U) != 0);
    }
    return false;
  }

  // One move of a record; returns the bytes it queued for other processes.
  std::size_t Move(std::uint32_t move) {
    if (limits_ != nullptr) {
      if (auto reason = limits_->Poll([this] { return states_.NextGrowth(); })) {
        Stop(*reason);
        return 0;
      }
    }
    const std::uint32_t rec = MoveRecord(move);
    const NodeRecord node = records_[rec];
    const MoveKind kind = MoveKindOf(move);
    const std::uint32_t finder = node.finder;
    const std::uint32_t next = finder + 1 == n_ ? 0 : finder + 1;
    const std::uint32_t rounds = node.rounds + (next == 0 ? 1U : 0U);
    const std::uint32_t delays = node.delays + (kind == kDelay ? 1U : 0U);
    if (delays > bounds_.delays) {
      delay_parked_.push_back(move);
      return 0;
    }
    if (rounds > bounds_.rounds) {
      round_parked_.push_back(move);
      return 0;
    }
    ++stats_.transitions;
    if (kind == kDelay) {
      ++stats_.delay_moves;
      AddKey(node.state, next, rounds, delays, Here(rec), {});
      return 0;
    }
    ++stats_.image_calls;
    states_.Get(node.state, scratch_.data());
    bool any = false;
    std::size_t queued = 0;
    model_->ForEachSuccessor(StateView(scratch_), next, [&](std::uint32_t, StateView succ) {
      if (any) ++stats_.transitions;
      any = true;
      // With one process every state is its own: no bytes to write or hash.
      int owner = 0;
      if (comm_->size() > 1) {
        encoded_.clear();
        model_->Encode(succ, encoded_);
        owner = Owner(encoded_);
      }
      if (owner == comm_->rank()) {
        AddState(succ, next, rounds, delays, Here(rec));
        return;
      }
      std::vector<std::uint8_t>& box = outboxes_[static_cast<std::size_t>(owner)];
      const std::size_t before = box.size();
      PutVarint(next, box);
      PutVarint(rounds, box);
      PutVarint(delays, box);
      PutVarint(static_cast<std::uint64_t>(comm_->rank()), box);
      PutVarint(rec, box);
      PutVarint(encoded_.size(), box);
      box.insert(box.end(), encoded_.begin(), encoded_.end());
      queued += box.size() - before;
      ++states_sent_;
    });
    if (!any) AddKey(node.state, next, rounds, delays, Here(rec), {});  // a stutter
    return queued;
  }

  // Inserts the successors other processes sent here.
  void Receive(const std::vector<std::uint8_t>& bytes) {
    const std::span<const std::uint8_t> all(bytes);
    std::size_t at = 0;
    while (at < all.size() && !stopped_) {
      std::uint64_t finder = 0;
      std::uint64_t rounds = 0;
      std::uint64_t delays = 0;
      std::uint64_t rank = 0;
      std::uint64_t parent = 0;
      std::uint64_t length = 0;
      if (!GetVarint(all, at, finder) || !GetVarint(all, at, rounds) ||
          !GetVarint(all, at, delays) || !GetVarint(all, at, rank) || !GetVarint(all, at, parent) ||
          !GetVarint(all, at, length) || length > all.size() - at || finder >= n_ ||
          rounds > kMaxBound || delays > kMaxBound ||
          rank >= static_cast<std::uint64_t>(comm_->size()) || parent >= kNoParent ||
          !model_->Decode(all.subspan(at, length), decoded_)) {
        Stop("a process received a state it cannot read");
        return;
      }
      at += length;
      AddState(StateView(decoded_), static_cast<std::uint32_t>(finder),
               static_cast<std::uint32_t>(rounds), static_cast<std::uint32_t>(delays),
               {static_cast<std::uint32_t>(rank), static_cast<std::uint32_t>(parent)});
    }
  }

  void AddState(StateView s, std::uint32_t finder, std::uint32_t rounds, std::uint32_t delays,
                Parent parent) {
    const auto found = states_.FindOrInsert(s);
    AddKey(found.id, finder, rounds, delays, parent, found.is_new ? s : StateView());
  }

  // The pair (rounds, delays) of key (state, finder): dropped when a kept pair dominates it; one
  // of the same depth (rounds) with more delays is lowered to it (not yet expanded: the layer of
  // that depth is being stored); otherwise kept, and its moves wait for its layer.
  void AddKey(std::uint32_t state, std::uint32_t finder, std::uint32_t rounds, std::uint32_t delays,
              Parent parent, StateView fresh) {
    const std::size_t key = std::size_t{state} * n_ + finder;
    if (heads_.size() <= key) heads_.resize((std::size_t{state} + 1) * n_, kNoParent);
    std::uint32_t& head = heads_[key];
    const bool new_key = head == kNoParent;
    if (!new_key) {
      for (std::uint32_t r = head; r != kNoParent; r = next_pair_[r]) {
        NodeRecord& kept = records_[r];
        if (kept.rounds <= rounds && kept.delays <= delays) {
          ++stats_.dominated;
          return;
        }
        if (kept.rounds == rounds) {
          kept.delays = delays & kMaxBound;
          parents_[r] = parent;
          ++stats_.dominated;
          return;
        }
      }
      ++stats_.reexpansions;
    }
    if (records_.size() >= kMaxRecords) {
      Stop("more than 2^31 - 2 search nodes at one process");
      return;
    }
    if (new_key) ++num_keys_;
    const auto rec = static_cast<std::uint32_t>(records_.size());
    records_.push_back(MakeRecord(state, finder, rounds, delays));
    next_pair_.push_back(head);
    parents_.push_back(parent);
    head = rec;
    std::vector<std::uint32_t>& layer = pending_[Depth(rounds, finder)];
    layer.push_back(PackMove(rec, kStep));
    layer.push_back(PackMove(rec, kDelay));
    if (!fresh.empty() && !listener_->OnNewState(rec, fresh)) Stop("listener");
  }

  Comm* comm_;
  Model* model_;
  Listener* listener_;
  LimitWatch* limits_;
  std::uint32_t n_;
  std::size_t batch_bytes_;
  Bounds bounds_;
  bool stopped_ = false;
  std::string stop_reason_;
  ExploreStats stats_;
  std::uint64_t states_sent_ = 0;

  PackedStateStore states_;
  std::vector<NodeRecord> records_;
  std::vector<std::uint32_t> next_pair_;  // per record: the key's next pair (kNoParent: none)
  std::vector<Parent> parents_;           // per record
  // Per key (state id * threads + finder): its latest record, or kNoParent.
  std::vector<std::uint32_t> heads_;
  std::size_t num_keys_ = 0;
  std::map<std::uint64_t, std::vector<std::uint32_t>> pending_;  // depth -> moves
  std::vector<std::uint32_t> round_parked_;
  std::vector<std::uint32_t> delay_parked_;
  std::vector<std::vector<std::uint8_t>> outboxes_;  // per process: the batch being filled
  std::vector<std::uint8_t> encoded_;
  std::vector<Word> decoded_;
  ProgressTicker* ticker_ = nullptr;  // progress reports (null: none)
  std::vector<Word> scratch_;
};

}  // namespace druba::distributed
