// The index of the search's keys and their Pareto pairs: which records a key (program state,
// finder) has kept, enough to decide whether a new pair is dominated.
//
// The explorer takes moves in an order (Frontier) in which a kept pair is never dominated by a
// later one, so a key's pairs only grow, and the index needs two of them per key: the key table
// holds, per (state, finder) slot, the key's pair with the fewest rounds (its representative),
// and a small hash set the pair with the fewest delays, for the keys with more than one pair.
// In that order, a new pair either has at least the rounds of every kept pair of its key (in the
// first search and round raises) or at least its delays (in delay raises), so a kept pair
// dominates it exactly when one of those two does. Were the order broken, a dominating pair could
// be missed: a pair would be kept twice, never lost.
//
// The set of second pairs is cut by a hash of the key into shards, one per job of the parallel
// store (ParallelStore), so that jobs update their shards at once; the key table is shared, and a
// job writes only its shard's slots.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <absl/container/flat_hash_map.h>
#include <absl/container/flat_hash_set.h>
#include <absl/container/inlined_vector.h>
#include <absl/hash/hash.h>

#include "common/resources.h"

#include "explore/chunked_vector.h"
#include "explore/node.h"

namespace druba {

class ParetoIndex {
 public:
  // A slot value the parallel store uses to mark a key new in the block being stored.
  static constexpr std::uint32_t kInBlock = 0x80000000;

  // `records` are the search's records, which the index points into and whose `has_second` bits
  // it keeps; `n` is the thread count (slots per program state).
  ParetoIndex(ChunkedVector<NodeRecord>& records, std::uint32_t n)
      : records_(records), n_(n), shards_(1, Shard(&records_)) {}
  ParetoIndex(const ParetoIndex&) = delete;
  ParetoIndex& operator=(const ParetoIndex&) = delete;

  // One shard of second pairs per job (before any pair is stored).
  void SetShards(unsigned count) {
    shards_.clear();
    for (unsigned j = 0; j < count; ++j) shards_.emplace_back(&records_);
  }
  unsigned num_shards() const { return static_cast<unsigned>(shards_.size()); }
  std::size_t ShardIndex(std::uint32_t state, std::uint32_t finder) const {
    if (shards_.size() == 1) return 0;
    const std::uint64_t mixed = (std::uint64_t{state} << 7 | finder) * 0x9E3779B97F4A7C15ULL;
    return static_cast<std::size_t>(mixed >> 40) % shards_.size();
  }

  // The key table has a slot for every finder of every stored program state.
  void Grow(std::size_t num_states) { key_of_.resize(num_states * n_); }
  // The key's slot: its representative record + 1, or 0 for no key yet (or kInBlock | i).
  std::uint32_t& Slot(std::uint32_t state, std::uint32_t finder) {
    return key_of_[KeySlot(state, finder)];
  }
  void Prefetch(std::uint32_t state, std::uint32_t finder) const {
    __builtin_prefetch(&key_of_[KeySlot(state, finder)]);
  }

  // Whether a kept pair of the key whose representative is `key` dominates (rounds, delays).
  bool Dominated(std::uint32_t key, std::uint32_t rounds, std::uint32_t delays) const {
    const NodeRecord& first = records_[key];
    if (Dominates(first, rounds, delays)) return true;
    return first.has_second != 0 && Dominates(records_[Second(first)], rounds, delays);
  }

  // `rec` is a new Pareto pair of the key whose representative is `key`: it may become the key's
  // first or second pair.
  void AddPair(std::uint32_t key, std::uint32_t rec) {
    Shard& shard = ShardOf(records_[key]);
    NodeRecord& old_first = records_[key];
    absl::InlinedVector<std::uint32_t, 3> indexed{key, rec};
    if (old_first.has_second != 0) {
      const auto it = shard.seconds.find(KeyRef{old_first.state, old_first.finder});
      indexed.push_back(*it);
      shard.seconds.erase(it);
    }
    old_first.has_second = 0;
    const std::uint32_t first = Fewest(indexed, kRounds);
    const std::uint32_t second = Fewest(indexed, kDelays);
    key_of_[KeySlot(old_first.state, old_first.finder)] = first + 1;
    if (second != first) {
      records_[first].has_second = 1;
      shard.seconds.insert(second);
    }
  }

  std::size_t KeyTableBytes() const { return key_of_.capacity() * sizeof(std::uint32_t); }
  std::size_t SecondPairsBytes() const {
    std::size_t bytes = 0;
    for (const Shard& shard : shards_)
      bytes += shard.seconds.capacity() * (sizeof(std::uint32_t) + 1);
    return bytes;
  }
  // What the sets of second pairs would allocate at once if they grew now (those close to it).
  Growth NextGrowth() const {
    Growth growth;
    for (const Shard& shard : shards_) {
      if (shard.seconds.size() * 10 >= shard.seconds.capacity() * 8) {
        growth.bytes +=
            static_cast<double>(shard.seconds.capacity() * 2 * (sizeof(std::uint32_t) + 1));
      }
    }
    return growth;
  }

  // For tests: an empty string when the index is exact (each key's slot holds its pair with the
  // fewest rounds, and the set of second pairs its pair with the fewest delays when that is
  // another one), every record's key is indexed, there are `num_keys` keys, and each key's pairs
  // are pairwise incomparable; otherwise what is wrong. Linear time and memory in the records.
  std::string Check(std::size_t num_keys) const {
    absl::flat_hash_map<std::uint64_t, std::vector<std::uint32_t>> pairs;
    for (std::uint32_t rec = 0; rec < records_.size(); ++rec) {
      const NodeRecord& r = records_[rec];
      pairs[std::uint64_t{r.state} << 8 | r.finder].push_back(rec);
    }
    std::size_t keys = 0;
    std::size_t seconds = 0;
    for (std::size_t slot = 0; slot < key_of_.size(); ++slot) {
      if (key_of_[slot] == 0) continue;
      const std::uint32_t key = key_of_[slot] - 1;
      const NodeRecord& first = records_[key];
      if (KeySlot(first.state, first.finder) != slot) {
        return "a key's representative in another key's slot";
      }
      const auto it = pairs.find(std::uint64_t{first.state} << 8 | first.finder);
      if (it == pairs.end()) return "a key without its records";
      ++keys;
      seconds += first.has_second;
      std::string problem = CheckKey(key, it->second);
      if (!problem.empty()) return problem;
    }
    if (keys != pairs.size() || keys != num_keys) return "a key is missing from the index";
    std::size_t indexed = 0;
    for (const Shard& shard : shards_) indexed += shard.seconds.size();
    if (indexed != seconds) return "stale second pairs in the index";
    return "";
  }

 private:
  // A key's slot: program states have dense ids, and each has one slot per finder. (On the
  // PLDI'18 files at K=2, 90-100% of the slots of a stored state hold a key, so this costs 4 to
  // 4.5 bytes per key, against 6 to 10 for a hash set of keys, and a lookup is one read; Stefan-8
  // at d=0 fills 60%: 6.6 bytes per key. It costs 4n bytes per program state, so with many
  // threads and few finders per state a hash set would be smaller.)
  std::size_t KeySlot(std::uint32_t state, std::uint32_t finder) const {
    return std::size_t{state} * n_ + finder;
  }

  // The set of second pairs holds record ids and is probed with (state, finder).
  struct KeyRef {
    std::uint32_t state;
    std::uint32_t finder;
  };
  static std::size_t HashKey(std::uint32_t state, std::uint32_t finder) {
    return absl::Hash<std::uint64_t>{}(std::uint64_t{state} << 8 | finder);
  }
  struct KeyHash {
    using is_transparent = void;
    const ChunkedVector<NodeRecord>* records;
    std::size_t operator()(std::uint32_t rec) const {
      return HashKey((*records)[rec].state, (*records)[rec].finder);
    }
    std::size_t operator()(const KeyRef& k) const { return HashKey(k.state, k.finder); }
  };
  struct KeyEq {
    using is_transparent = void;
    const ChunkedVector<NodeRecord>* records;
    bool operator()(std::uint32_t a, std::uint32_t b) const { return a == b; }
    bool operator()(std::uint32_t a, const KeyRef& k) const {
      return (*records)[a].state == k.state && (*records)[a].finder == k.finder;
    }
    bool operator()(const KeyRef& k, std::uint32_t a) const { return (*this)(a, k); }
  };
  struct Shard {
    explicit Shard(const ChunkedVector<NodeRecord>* records)
        : seconds(0, KeyHash{records}, KeyEq{records}) {}
    // Per key with more than one pair: the one with the fewest delays.
    absl::flat_hash_set<std::uint32_t, KeyHash, KeyEq> seconds;
  };
  Shard& ShardOf(const NodeRecord& r) { return shards_[ShardIndex(r.state, r.finder)]; }
  const Shard& ShardOf(const NodeRecord& r) const { return shards_[ShardIndex(r.state, r.finder)]; }

  std::uint32_t Second(const NodeRecord& first) const {
    return *ShardOf(first).seconds.find(KeyRef{first.state, first.finder});
  }

  // Of the records `ids`, the one with the fewest rounds (ties: delays), or delays (ties: rounds).
  enum Counter { kRounds, kDelays };
  template <class Ids>
  std::uint32_t Fewest(const Ids& ids, Counter counter) const {
    const auto order = [&](std::uint32_t id) {
      const NodeRecord& r = records_[id];
      return counter == kRounds ? std::pair<std::uint32_t, std::uint32_t>(r.rounds, r.delays)
                                : std::pair<std::uint32_t, std::uint32_t>(r.delays, r.rounds);
    };
    return *std::min_element(ids.begin(), ids.end(),
                             [&](std::uint32_t a, std::uint32_t b) { return order(a) < order(b); });
  }

  // The key whose representative is `key`, with all its records `all`.
  std::string CheckKey(std::uint32_t key, const std::vector<std::uint32_t>& all) const {
    const NodeRecord& first = records_[key];
    const std::uint32_t by_rounds = Fewest(all, kRounds);
    const std::uint32_t by_delays = Fewest(all, kDelays);
    if (key != by_rounds) return "key of record " + std::to_string(key) + ": wrong first pair";
    if ((by_delays != by_rounds) != (first.has_second != 0) ||
        (first.has_second != 0 && Second(first) != by_delays)) {
      return "key of record " + std::to_string(key) + ": wrong second pair";
    }
    for (const std::uint32_t a : all) {
      for (const std::uint32_t b : all) {
        if (a != b && Dominates(records_[a], records_[b].rounds, records_[b].delays)) {
          return "records " + std::to_string(a) + " and " + std::to_string(b) + " are comparable";
        }
      }
    }
    return "";
  }

  ChunkedVector<NodeRecord>& records_;
  std::uint32_t n_;
  ChunkedVector<std::uint32_t> key_of_;  // per (state, finder): see Slot
  std::vector<Shard> shards_;
};

}  // namespace druba
