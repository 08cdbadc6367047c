// A block of moves, expanded in two phases (Explorer::SetJobs). The first phase (on every worker)
// only reads the search: it computes each move's successors and looks them up in the state store,
// writing a WorkerOutput. The second stores them: with one worker, one at a time in block order
// (Explorer::StoreInOrder); with several, through a ParallelStore: the new program states are
// stored in block order, then the keys, cut into one shard per worker by a hash of the key
// (ParetoIndex::ShardIndex), let each worker decide, in block order, which successors of its shard
// are dominated (by a pair kept before the block or earlier in it: domination is transitive, so
// that is the sequential test); the kept ones get record ids in block order, and each worker
// stores its shard's records. Same records, ids and decisions as the store in order, so the
// search does not depend on the number of workers or their timing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include <absl/container/flat_hash_map.h>
#include <absl/container/inlined_vector.h>

#include "common/worker_pool.h"
#include "explore/chunked_vector.h"
#include "explore/node.h"
#include "explore/pareto_index.h"
#include "explore/state_store.h"

namespace druba {

// A successor the first phase kept: no pair of its key dominated it when the block began.
struct Candidate {
  std::uint32_t parent;
  std::uint32_t state;  // its id; when not `stored`, the index of its words in WorkerOutput
  std::uint32_t rounds;
  std::uint32_t delays;
  std::uint32_t finder;
  bool stored;
};

// What one worker's first phase wrote.
struct WorkerOutput {
  std::vector<Candidate> candidates;
  std::vector<Word> words;
  std::vector<std::uint32_t> round_parked;
  std::size_t delay_parked = 0;  // moves the delay bound stopped (the delay frontier is implicit)
  std::vector<Word> scratch;
  ExploreStats stats;
  bool lookup = false;  // look successors up in the state store (when the first phase is shared)

  // The words of a candidate the first phase did not find in the state store.
  StateView WordsOf(const Candidate& c, std::size_t width) const {
    return {words.data() + std::size_t{c.state} * width, width};
  }
  std::size_t Capacity() const {
    return candidates.capacity() * sizeof(Candidate) +
           (words.capacity() + round_parked.capacity() + scratch.capacity()) * sizeof(Word);
  }
};

// The second phase with several workers, after the block's new program states were stored.
class ParallelStore {
 public:
  void Begin() {
    block_.clear();
    fresh_.clear();
  }
  // The block's successors in block order; `fresh`: its program state was stored just now.
  void Add(const Candidate& c, bool fresh) {
    if (fresh) fresh_.push_back(static_cast<std::uint32_t>(block_.size()));
    block_.push_back(c);
  }

  // Which successors are kept, each shard on a worker of `pool`. The key table must have the
  // block's states' slots (ParetoIndex::Grow).
  void Decide(ParetoIndex& index, WorkerPool& pool) {
    const unsigned shards = index.num_shards();
    shard_items_.resize(shards);
    touched_.resize(shards);
    shard_stats_.resize(shards);
    for (auto& items : shard_items_) items.clear();
    for (std::uint32_t i = 0; i < block_.size(); ++i) {
      shard_items_[index.ShardIndex(block_[i].state, block_[i].finder)].push_back(i);
    }
    outcome_.assign(block_.size(), kDrop);
    pool.Run(shards, [this, &index](unsigned shard) { DecideShard(shard, index); });
  }

  // Record ids in block order from `base`. Returns how many successors are kept and how many of
  // them are new keys, and hands over the decisions' counts in `stats`.
  std::pair<std::size_t, std::size_t> AssignIds(std::size_t base, ExploreStats& stats) {
    std::size_t kept = 0;
    std::size_t new_keys = 0;
    ids_.resize(block_.size());
    for (std::uint32_t i = 0; i < block_.size(); ++i) {
      if (outcome_[i] != kDrop) ids_[i] = static_cast<std::uint32_t>(base + kept++);
      if (outcome_[i] == kNewKey) ++new_keys;
    }
    for (ExploreStats& st : shard_stats_) {
      stats += st;
      st = {};
    }
    return {kept, new_keys};
  }

  // The block is not stored after all (too many records): the slots Decide marked are freed.
  void Abandon(ParetoIndex& index) {
    for (std::uint32_t i = 0; i < block_.size(); ++i) {
      if (outcome_[i] == kNewKey) index.Slot(block_[i].state, block_[i].finder) = 0;
    }
  }

  // Stores the kept successors at their ids (`records` and, if kept, `parents` already sized).
  void Apply(ParetoIndex& index, ChunkedVector<NodeRecord>& records,
             ChunkedVector<std::uint32_t>* parents, WorkerPool& pool) {
    pool.Run(index.num_shards(),
             [&](unsigned shard) { ApplyShard(shard, index, records, parents); });
  }

  // f(state id, record id) for each successor whose program state was new, in block order.
  template <class F>
  void ForEachFresh(F&& f) const {
    for (const std::uint32_t i : fresh_) f(block_[i].state, ids_[i]);
  }

  // Gives the buffers' memory back (between raises).
  void Release() {
    std::vector<Candidate>().swap(block_);
    std::vector<Outcome>().swap(outcome_);
    std::vector<std::uint32_t>().swap(ids_);
    for (auto& items : shard_items_) std::vector<std::uint32_t>().swap(items);
    for (auto& touched : touched_) touched = {};
  }
  std::size_t MemoryBytes() const {
    std::size_t bytes = block_.capacity() * sizeof(Candidate) + outcome_.capacity() +
                        (ids_.capacity() + fresh_.capacity()) * sizeof(std::uint32_t);
    for (const auto& items : shard_items_) bytes += items.capacity() * sizeof(std::uint32_t);
    return bytes;
  }

 private:
  enum Outcome : std::uint8_t { kDrop, kNewKey, kNewPair };

  // Which of its shard's successors of the block are kept, as the store in order would decide.
  void DecideShard(unsigned shard, ParetoIndex& index) {
    // Keys of the index given a new pair earlier in this block, and those pairs. (A key new in this
    // block is marked in its key-table slot instead, with the block index of its first pair.)
    auto& touched = touched_[shard];
    touched.clear();
    ExploreStats& st = shard_stats_[shard];
    const std::vector<std::uint32_t>& items = shard_items_[shard];
    for (std::size_t k = 0; k < items.size(); ++k) {
      if (k + kPrefetchAhead < items.size()) {
        const Candidate& later = block_[items[k + kPrefetchAhead]];
        index.Prefetch(later.state, later.finder);
      }
      const std::uint32_t i = items[k];
      const Candidate& c = block_[i];
      std::uint32_t& slot = index.Slot(c.state, c.finder);
      if (slot == 0) {
        outcome_[i] = kNewKey;
        slot = ParetoIndex::kInBlock | i;
        continue;
      }
      bool dominated = false;
      if ((slot & ParetoIndex::kInBlock) != 0) {
        const Candidate& first = block_[slot & ~ParetoIndex::kInBlock];
        dominated = first.rounds <= c.rounds && first.delays <= c.delays;
      } else {
        dominated = index.Dominated(slot - 1, c.rounds, c.delays);
      }
      const std::uint64_t key = std::uint64_t{c.state} << 8 | c.finder;
      const auto earlier = touched.empty() ? touched.end() : touched.find(key);
      if (!dominated && earlier != touched.end()) {
        for (const std::uint32_t p : earlier->second) {
          dominated = dominated || ((p >> 16) <= c.rounds && (p & 0xFFFF) <= c.delays);
        }
      }
      if (dominated) {
        ++st.dominated;
        continue;
      }
      ++st.reexpansions;
      outcome_[i] = kNewPair;
      touched[key].push_back(c.rounds << 16 | c.delays);
    }
  }

  // Stores its shard's kept successors of the block at their record ids.
  void ApplyShard(unsigned shard, ParetoIndex& index, ChunkedVector<NodeRecord>& records,
                  ChunkedVector<std::uint32_t>* parents) {
    for (const std::uint32_t i : shard_items_[shard]) {
      if (outcome_[i] == kDrop) continue;
      const Candidate& c = block_[i];
      const std::uint32_t rec = ids_[i];
      records[rec] = MakeRecord(c.state, c.finder, c.rounds, c.delays);
      if (parents != nullptr) (*parents)[rec] = c.parent;
      std::uint32_t& slot = index.Slot(c.state, c.finder);
      if (outcome_[i] == kNewKey) {
        slot = rec + 1;
      } else {
        index.AddPair(slot - 1, rec);
      }
    }
  }

  static constexpr std::size_t kPrefetchAhead = 8;
  std::vector<Candidate> block_;                         // the block's successors, in block order
  std::vector<std::uint32_t> fresh_;                     // those whose program state was new
  std::vector<std::vector<std::uint32_t>> shard_items_;  // each shard's share, in block order
  std::vector<Outcome> outcome_;
  std::vector<std::uint32_t> ids_;  // the kept ones' record ids
  std::vector<absl::flat_hash_map<std::uint64_t, absl::InlinedVector<std::uint32_t, 2>>> touched_;
  std::vector<ExploreStats> shard_stats_;
};

}  // namespace druba
