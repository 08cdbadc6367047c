// Exact, frontier-driven computation of R(r,d): the program states reachable under Round-Robin
// scheduling with at most r rounds and d delays (DESIGN.md sections 2 and 3).
//
// A search node is a key (program state, finder) plus counters (rounds, delays). For every key the
// explorer keeps the Pareto-minimal counter pairs it has seen; each kept pair is a NodeRecord and
// is expanded once. Expanding a record tries both moves of the next thread: a step (one successor
// per enabled action, or a stutter when none is enabled) and a delay. A move the bounds do not
// allow is parked on the round or the delay frontier; RaiseRounds()/RaiseDelays() resume exactly
// the parked moves that the raised bound allows. Invariant (tested against a from-scratch
// computation of Def. 1): after Start() and after every raise that was not stopped, the stored
// program states are exactly R(r,d).
//
// Moves are taken layer by layer in increasing depth, and within a layer in increasing delays of
// their successors (Drain), so a kept pair is never dominated by a later one: a key's pairs only
// grow, and its index needs just two of them (AddPair): its key-table slot holds the pair with
// the fewest rounds, and a small hash set the one with the fewest delays.
//
// Parallel expansion (SetJobs): the moves to take are cut into blocks, and a block is expanded
// in two phases. The first (ComputeSuccessors) runs on all workers and only reads the search: it
// computes the successors and looks them up in the state store. The second stores them: with one
// worker, one at a time in block order (StoreInOrder); with several (StoreInParallel), the new
// program states are stored in block order, then the keys, cut into one shard per worker by a
// hash of the key, let each worker decide and store the successors whose keys fall in its shard,
// in block order, with record ids given in block order in between. Either way the same records
// get the same ids, so the stored states, keys, records and parent links do not depend on the
// number of workers or their timing.
//
// The explorer knows nothing about the model's states beyond their words: the Model gives initial
// states and per-thread successors, and a Listener hears about every new program state.
#pragma once

#include <algorithm>
#include <array>
#include <chrono>
#include <concepts>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <absl/container/flat_hash_map.h>
#include <absl/container/flat_hash_set.h>
#include <absl/container/inlined_vector.h>
#include <absl/hash/hash.h>

#include "common/resources.h"
#include "common/worker_pool.h"
#include "explore/chunked_vector.h"
#include "explore/model.h"
#include "explore/state_store.h"

namespace druba {

struct Bounds {
  std::uint32_t rounds = 0;
  std::uint32_t delays = 0;
  friend bool operator==(const Bounds&, const Bounds&) = default;
};

// One kept Pareto pair of a key.
// A key is (program state, finder); it is identified by one of its records (its representative),
// so a record carries the key itself and no separate key table is needed (8 bytes per record).
struct NodeRecord {
  std::uint32_t state;        // program state id
  std::uint32_t rounds : 11;  // at most kMaxBound
  std::uint32_t delays : 11;  // at most kMaxBound
  std::uint32_t finder : 7;   // the thread of the last slot (fewer than kMaxThreads threads)
  // In a key's representative (its pair with the fewest rounds): whether the key has another
  // pair, so that the one with the fewest delays is in Explorer's index of second pairs.
  std::uint32_t has_second : 1;
};
static_assert(sizeof(NodeRecord) == 8);
inline constexpr std::uint32_t kNoParent = std::numeric_limits<std::uint32_t>::max();
inline constexpr std::uint32_t kMaxBound = 2047;   // rounds and delays fit in 11 bits
inline constexpr std::uint32_t kMaxThreads = 128;  // a finder fits in 7 bits
// Record ids stay below 2^31 - 1: a parked move packs one with a bit, and a key-table slot holds
// one plus one or (in the parallel store) a flag bit.
inline constexpr std::size_t kMaxRecords = (std::size_t{1} << 31) - 1;

struct ExploreStats {
  std::uint64_t image_calls = 0;   // calls to the model's successor function
  std::uint64_t delay_moves = 0;   // delays taken
  std::uint64_t transitions = 0;   // successor nodes generated (steps, stutters and delays)
  std::uint64_t dominated = 0;     // rediscoveries dropped because a kept pair dominates them
  std::uint64_t reexpansions = 0;  // rediscoveries kept as a new Pareto pair
  ExploreStats& operator+=(const ExploreStats& o) {
    image_calls += o.image_calls;
    delay_moves += o.delay_moves;
    transitions += o.transitions;
    dominated += o.dominated;
    reexpansions += o.reexpansions;
    return *this;
  }
};

template <ExplorableModel Model, ExploreListener Listener>
class Explorer {
 public:
  static constexpr unsigned kMaxJobs = 64;
  static constexpr std::size_t kParallelMin = 2048;  // smaller blocks run on the caller alone

  Explorer(Model& model, Listener& listener, LimitWatch* limits = nullptr)
      : model_(model),
        listener_(listener),
        limits_(limits),
        n_(model.num_threads()),
        states_(model.state_width()),
        shards_(1, Shard(&records_)) {
    if (n_ > kMaxThreads) Stop("more than " + std::to_string(kMaxThreads) + " threads");
  }
  // The key set points into records_: no copies.
  Explorer(const Explorer&) = delete;
  Explorer& operator=(const Explorer&) = delete;

  // Computes R(bounds) from the initial states. Returns false if the search was stopped.
  bool Start(Bounds bounds = {}) {
    if (bounds.rounds > kMaxBound || bounds.delays > kMaxBound) {
      return Stop("bound above " + std::to_string(kMaxBound));
    }
    bounds_ = bounds;
    model_.ForEachInitial([&](StateView s) {
      if (!stopped_) DiscoverState(s, n_ - 1, 0, 0, kNoParent);
    });
    return Drain();
  }

  // R(r,d) -> R(r+1,d), expanding only the moves the old round bound parked.
  bool RaiseRounds() {
    if (!BeginRaise(bounds_.rounds)) return false;
    // The round frontier holds moves of records of one depth (the last of the old bound).
    pending_.swap(round_parked_);
    std::vector<std::uint32_t>().swap(round_parked_);
    return Drain();
  }
  // R(r,d) -> R(r,d+1), expanding only the moves the old delay bound parked.
  bool RaiseDelays() {
    const std::uint32_t old_bound = bounds_.delays;
    if (!BeginRaise(bounds_.delays)) return false;
    // The delay frontier is kept implicitly: it is the delay move of every record with as many
    // delays as the old bound, and those were all stored since the delay raise before began.
    scan_ = {delay_watermark_, records_.size(), old_bound};
    delay_watermark_ = records_.size();
    delay_parked_ = 0;
    return Drain();
  }

  Bounds bounds() const { return bounds_; }
  bool stopped() const { return stopped_; }
  const std::string& stop_reason() const { return stop_reason_; }
  const ExploreStats& stats() const { return stats_; }
  std::uint32_t num_threads() const { return n_; }

  std::size_t num_states() const { return states_.size(); }
  std::size_t num_keys() const { return num_keys_; }
  std::size_t num_records() const { return records_.size(); }
  std::size_t parked_moves() const { return round_parked_.size() + delay_parked_; }
  std::vector<Word> state(std::uint32_t state_id) const { return states_.Get(state_id); }
  std::size_t bytes_per_state_word() const { return states_.bytes_per_word(); }

  const NodeRecord& record(std::uint32_t id) const { return records_[id]; }

  // Bytes of everything the search keeps, for the "bytes per state" figures.
  struct Memory {
    std::size_t states = 0;   // packed program states and their index
    std::size_t keys = 0;     // the key table: per (state, finder), its representative
    std::size_t records = 0;  // the Pareto pairs
    std::size_t parents = 0;  // parent links (traces)
    std::size_t pairs = 0;    // the index of keys' second pairs
    std::size_t parked = 0;   // the round and delay frontiers
    std::size_t Total() const { return states + keys + records + parents + pairs + parked; }
  };
  Memory MemoryUse() const {
    Memory m;
    m.states = states_.MemoryBytes();
    for (const Shard& shard : shards_) {
      m.pairs += shard.seconds.capacity() * (sizeof(std::uint32_t) + 1);
    }
    m.keys = key_of_.capacity() * sizeof(std::uint32_t);
    m.records = records_.capacity() * sizeof(NodeRecord);
    m.parents = parents_.capacity() * sizeof(std::uint32_t);
    m.parked = (round_parked_.capacity() + pending_.capacity() + resumed_.capacity() +
                current_.capacity() + next_.capacity()) *
               sizeof(std::uint32_t);
    for (const WorkerOutput& out : outputs_) m.parked += out.Capacity();
    m.parked += block_.capacity() * sizeof(Candidate) + outcome_.capacity() +
                (ids_.capacity() + fresh_.capacity()) * sizeof(std::uint32_t);
    for (const auto& items : shard_items_) m.parked += items.capacity() * sizeof(std::uint32_t);
    return m;
  }
  std::size_t MemoryBytes() const { return MemoryUse().Total(); }

  // What the next growth of the big tables and arrays would allocate at once, counting only those
  // close to growing (between two limit checks a few thousand nodes are added).
  std::size_t NextGrowthBytes() const {
    std::size_t bytes = states_.NextGrowthBytes();
    const auto table = [&](std::size_t size, std::size_t capacity, std::size_t slot) {
      if (size * 10 >= capacity * 8) bytes += capacity * 2 * (slot + 1);
    };
    for (const Shard& shard : shards_) {
      table(shard.seconds.size(), shard.seconds.capacity(), sizeof(std::uint32_t));
    }
    for (const std::vector<std::uint32_t>* v : {&round_parked_, &next_}) {
      if (v->size() * 10 >= v->capacity() * 9) bytes += v->capacity() * 2 * sizeof(std::uint32_t);
    }
    return bytes;
  }

  // The records from an initial node to `id`, in path order: by the parent links when they are
  // kept, else found backwards (SearchPathTo).
  std::vector<std::uint32_t> PathTo(std::uint32_t id) const {
    if (!keep_parents_) return SearchPathTo(id);
    std::vector<std::uint32_t> path;
    for (std::uint32_t r = id; r != kNoParent; r = parents_[r]) path.push_back(r);
    return {path.rbegin(), path.rend()};
  }

  // A path to `id` found without parent links, one move back at a time: a record whose move gives
  // exactly the later record's state and counters (the record it was made from is one, and records
  // are never removed, so there always is one). Each move back scans the records once and calls
  // the successor function on those with the right finder and counters: a trace costs at most
  // about one more pass over the search's work, and no memory while searching. Empty only if no
  // such record is found, which would be a bug.
  std::vector<std::uint32_t> SearchPathTo(std::uint32_t id) const {
    std::vector<std::uint32_t> path{id};
    std::vector<Word> target(states_.width());
    std::vector<Word> from(states_.width());
    for (std::uint32_t at = id; !(records_[at].rounds == 0 && records_[at].finder == n_ - 1);) {
      const NodeRecord later = records_[at];
      const std::uint32_t finder = later.finder == 0 ? n_ - 1 : later.finder - 1;
      const std::uint32_t rounds = later.rounds - (later.finder == 0 ? 1 : 0);
      states_.Get(later.state, target.data());
      std::optional<std::uint32_t> found;
      for (std::uint32_t rec = 0; rec < records_.size() && !found; ++rec) {
        const NodeRecord& r = records_[rec];
        if (r.finder != finder || r.rounds != rounds) continue;
        if (r.delays + 1 == later.delays && r.state == later.state) {  // a delay
          found = rec;
        } else if (r.delays == later.delays) {  // a step, or a stutter
          states_.Get(r.state, from.data());
          bool any = false;
          bool hit = false;
          model_.ForEachSuccessor(
              StateView(from), later.finder, [&](std::uint32_t /*action*/, StateView succ) {
                any = true;
                hit = hit || std::equal(succ.begin(), succ.end(), target.begin(), target.end());
              });
          if (hit || (!any && r.state == later.state)) found = rec;
        }
      }
      if (!found) return {};
      path.push_back(*found);
      at = *found;
    }
    return {path.rbegin(), path.rend()};
  }
  // Threads for the first phase of the expansion (1: none besides the caller). Models that are not
  // a ConcurrentModel always use one. `parallel_min`: blocks with fewer moves run on the caller
  // alone (tests lower it to run tiny searches in parallel). `adaptive`: blocks run on all workers
  // only while that is faster per move than on one (both give the same records): every 16 blocks,
  // two blocks in a row are timed, one each way.
  void SetJobs(unsigned jobs, std::size_t parallel_min = kParallelMin, bool adaptive = false) {
    if (!records_.empty()) return;  // before Start() only: the key index is cut per job
    jobs_ = ConcurrentModel<Model> ? std::max(1U, std::min(jobs, kMaxJobs)) : 1;
    parallel_min_ = std::max<std::size_t>(1, parallel_min);
    adaptive_ = adaptive;
    shards_.clear();
    for (unsigned j = 0; j < jobs_; ++j) shards_.emplace_back(&records_);
  }
  unsigned jobs() const { return jobs_; }

  // For tests: an empty string when the index of pairs is exact (each key's slot holds its pair
  // with the fewest rounds, and the index of second pairs its pair with the fewest delays when
  // that is another one) and each key's pairs are pairwise incomparable (no pair was kept that
  // one kept earlier dominates, and none dominates one kept earlier: see Drain); otherwise what is
  // wrong. Takes time and memory linear in the records.
  std::string CheckParetoIndex() const {
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
      const std::vector<std::uint32_t>& all = it->second;
      const std::uint32_t by_rounds = Fewest(all, kRounds);
      const std::uint32_t by_delays = Fewest(all, kDelays);
      if (key != by_rounds) return "key of record " + std::to_string(key) + ": wrong first pair";
      if ((by_delays != by_rounds) != (first.has_second != 0) ||
          (first.has_second != 0 && Second(first) != by_delays)) {
        return "key of record " + std::to_string(key) + ": wrong second pair";
      }
      seconds += first.has_second;
      for (const std::uint32_t a : all) {
        for (const std::uint32_t b : all) {
          if (a != b && Dominates(records_[a], records_[b].rounds, records_[b].delays)) {
            return "records " + std::to_string(a) + " and " + std::to_string(b) + " are comparable";
          }
        }
      }
    }
    if (keys != pairs.size() || keys != num_keys_) return "a key is missing from the index";
    std::size_t indexed = 0;
    for (const Shard& shard : shards_) indexed += shard.seconds.size();
    if (indexed != seconds) return "stale second pairs in the index";
    return "";
  }

  // Parent links (4 bytes per search node): PathTo follows them instead of searching backwards.
  // The driver keeps none; tests keep them as the reference the backward search is checked
  // against. Call before Start().
  void KeepParents(bool keep) { keep_parents_ = keep; }
  bool keeps_parents() const { return keep_parents_; }

 private:
  enum MoveKind : std::uint32_t { kStep = 0, kDelay = 1 };
  static std::uint32_t Pack(std::uint32_t record, MoveKind kind) { return record << 1 | kind; }

  // A key's slot in the key table: program states have dense ids, and each has one slot per
  // finder. (On the PLDI'18 files at K=2, 90-100% of the slots of a stored state hold a key, so
  // this costs 4 to 4.5 bytes per key, against 6 to 10 for a hash set of keys, and a lookup is
  // one read; Stefan-8 at d=0 fills 60%: 6.6 bytes per key. It costs 4n bytes per program state,
  // so with many threads and few finders per state a hash set would be smaller.)
  std::size_t KeySlot(std::uint32_t state, std::uint32_t finder) const {
    return std::size_t{state} * n_ + finder;
  }
  // The key table holds a slot for every finder of every stored program state.
  void GrowKeyTable() { key_of_.resize(states_.size() * n_); }

  static constexpr std::size_t kBlockItems = std::size_t{1} << 13;  // moves expanded per block
  static constexpr std::size_t kPrefetchAhead = 8;

  // A successor the first phase kept: no pair of its key dominated it when the block began.
  struct Candidate {
    std::uint32_t parent;
    std::uint32_t state;  // its id; when not `stored`, the index of its words in WorkerOutput
    std::uint32_t rounds;
    std::uint32_t delays;
    std::uint32_t finder;
    bool stored;
  };
  struct WorkerOutput {
    std::vector<Candidate> candidates;
    std::vector<Word> words;
    std::vector<std::uint32_t> round_parked;
    std::size_t delay_parked = 0;  // moves the delay bound stopped (the delay frontier is implicit)
    std::vector<Word> scratch;
    ExploreStats stats;
    // The words of a candidate the first phase did not find in the state store.
    StateView WordsOf(const Candidate& c, std::size_t width) const {
      return {words.data() + std::size_t{c.state} * width, width};
    }
    bool lookup = false;  // look successors up in the state store (when the first phase is shared)
    std::size_t Capacity() const {
      return candidates.capacity() * sizeof(Candidate) +
             (words.capacity() + round_parked.capacity() + scratch.capacity()) *
                 sizeof(std::uint32_t);
    }
  };
  // A ConcurrentModel's Worker; a placeholder for other models.
  template <class M>
  struct WorkerOf {
    struct type {
      explicit type(M& /*model*/) {}
    };
  };
  template <ConcurrentModel M>
  struct WorkerOf<M> {
    using type = typename M::Worker;
  };

  // The index of second pairs holds record ids and is probed with (state, finder).
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

  // The index of second pairs, cut by a hash of the key into one part per job, so that jobs can
  // update their parts at once. The key table is shared: a job writes only its part's slots.
  struct Shard {
    explicit Shard(const ChunkedVector<NodeRecord>* records)
        : seconds(0, KeyHash{records}, KeyEq{records}) {}
    // Per key with more than one pair: the one with the fewest delays.
    absl::flat_hash_set<std::uint32_t, KeyHash, KeyEq> seconds;
  };
  std::size_t ShardIndex(std::uint32_t state, std::uint32_t finder) const {
    if (shards_.size() == 1) return 0;
    const std::uint64_t mixed = (std::uint64_t{state} << 7 | finder) * 0x9E3779B97F4A7C15ULL;
    return static_cast<std::size_t>(mixed >> 40) % shards_.size();
  }
  Shard& ShardOf(std::uint32_t state, std::uint32_t finder) {
    return shards_[ShardIndex(state, finder)];
  }
  const Shard& ShardOf(std::uint32_t state, std::uint32_t finder) const {
    return shards_[ShardIndex(state, finder)];
  }
  Shard& ShardOf(const NodeRecord& r) { return ShardOf(r.state, r.finder); }
  const Shard& ShardOf(const NodeRecord& r) const { return ShardOf(r.state, r.finder); }

  bool Stop(std::string reason) {
    if (!stopped_) {
      stopped_ = true;
      stop_reason_ = std::move(reason);
    }
    return false;
  }

  bool BeginRaise(std::uint32_t& bound) {
    if (stopped_) return false;
    if (bound >= kMaxBound) return Stop("bound above " + std::to_string(kMaxBound));
    ++bound;
    return true;
  }

  // The moves a raise resumes come from pending_ (the round frontier) or from scan_ (records of
  // the delay frontier), in order of depth: moves were parked layer by layer in increasing depth
  // within each raise, the round frontier holds moves of one depth only, and after a delay raise
  // only round raises add to the delay frontier, with deeper records (so record ids are in order
  // of depth too). (Were they not, the search would still be exact: see Drain.)
  struct DelayScan {
    std::size_t next = 0;  // record id
    std::size_t end = 0;
    std::uint32_t delays = 0;
  };
  // The next resumed move, if any, without taking it.
  std::optional<std::uint32_t> PeekResumed(std::size_t pos) {
    if (pos < pending_.size()) return pending_[pos];
    while (scan_.next < scan_.end && records_[scan_.next].delays != scan_.delays) ++scan_.next;
    if (scan_.next < scan_.end) return Pack(static_cast<std::uint32_t>(scan_.next), kDelay);
    return std::nullopt;
  }
  void TakeResumed(std::size_t& pos) {
    if (pos < pending_.size()) {
      ++pos;
    } else {
      ++scan_.next;
    }
  }

  // The number of moves from an initial node (depth 0: rounds 0, finder n-1) to a node, up to a
  // constant: each move passes the turn on, and a round begins with thread 0.
  std::uint32_t Depth(const NodeRecord& r) const { return r.rounds * n_ + r.finder; }

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

  // Expands layer after layer in increasing depth. A layer is every move of the nodes of one
  // depth (those the layer before stored, and the parked moves a raise resumed at that depth),
  // taken in increasing order of their successors' delays. A layer's successors all have one
  // depth, so a key's successors in it have the same rounds, and they are stored in increasing
  // order of delays; and a raise only adds pairs whose raised counter is above that of every kept
  // pair. So no pair ever dominates a pair kept before it: a key's pairs only grow, and no moves
  // are spent on a key found again later with a smaller pair. (CheckParetoIndex checks it; were it
  // broken, the search would still be exact, only some moves would be taken twice.)
  bool Drain() {
    std::size_t pos = 0;  // in pending_
    constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();
    for (;;) {
      const std::optional<std::uint32_t> resumed = PeekResumed(pos);
      if (stopped_ || (next_.empty() && !resumed)) break;
      const std::uint32_t from_records = next_.empty() ? kNone : Depth(records_[next_.front()]);
      const std::uint32_t from_pending = resumed ? Depth(records_[*resumed >> 1]) : kNone;
      const std::uint32_t depth = std::min(from_records, from_pending);
      const std::size_t records = from_records == depth ? next_.size() : 0;
      resumed_.clear();
      for (auto move = resumed; move && Depth(records_[*move >> 1]) == depth;
           move = PeekResumed(pos)) {
        resumed_.push_back(*move);
        TakeResumed(pos);
      }
      if (resumed_.empty()) {
        // Only the records the layer before stored, which came in increasing order of delays: per
        // run of equal delays e, their steps (successors with e delays), then their delays (e+1).
        current_.clear();
        for (std::size_t i = 0; i < records;) {
          std::size_t j = i + 1;
          const std::uint32_t delays = records_[next_[i]].delays;
          while (j < records && records_[next_[j]].delays == delays) ++j;
          for (std::size_t k = i; k < j; ++k) current_.push_back(Pack(next_[k], kStep));
          for (std::size_t k = i; k < j; ++k) current_.push_back(Pack(next_[k], kDelay));
          i = j;
        }
      } else {
        // Move i: the step (even i) or delay (odd i) of the i/2-th record, then the resumed ones.
        const auto move = [&](std::size_t i) {
          return i < 2 * records ? Pack(next_[i / 2], static_cast<MoveKind>(i & 1))
                                 : resumed_[i - 2 * records];
        };
        const std::size_t count = 2 * records + resumed_.size();
        current_.resize(count);
        CountingSort(
            count, move, [this](std::uint32_t m) { return records_[m >> 1].delays + (m & 1); },
            current_);
      }
      if (records > 0) next_.clear();
      Expand(current_);
    }
    // The layers are empty between raises: give their memory back.
    std::vector<std::uint32_t>().swap(pending_);
    scan_ = {};
    std::vector<std::uint32_t>().swap(resumed_);
    std::vector<std::uint32_t>().swap(current_);
    std::vector<std::uint32_t>().swap(next_);
    for (WorkerOutput& out : outputs_) out = WorkerOutput();
    std::vector<Candidate>().swap(block_);
    std::vector<Outcome>().swap(outcome_);
    std::vector<std::uint32_t>().swap(ids_);
    for (auto& items : shard_items_) std::vector<std::uint32_t>().swap(items);
    for (auto& touched : touched_) touched = {};
    // A stop asked for during the last block (a model that could not compute a successor stops
    // the limits) is a stop, even when no candidate was left to notice it.
    LimitReached();
    return !stopped_;
  }

  // Takes the moves (packed record and move kind) of `items`, block after block.
  void Expand(const std::vector<std::uint32_t>& items) {
    for (std::size_t begin = 0; begin < items.size() && !stopped_; begin += kBlockItems) {
      const std::size_t size = std::min(kBlockItems, items.size() - begin);
      ExpandBlock(std::span<const std::uint32_t>(items).subspan(begin, size));
    }
  }

  void ExpandBlock(std::span<const std::uint32_t> items) {
    unsigned workers = items.size() >= parallel_min_
                           ? static_cast<unsigned>(std::min<std::size_t>(jobs_, items.size()))
                           : 1;
    if (workers > 1 && adaptive_) {
      // Every kRetimeEvery blocks, a trial: two blocks in a row, one each way (which first
      // alternates), so that both are timed on moves alike. The faster way, by time per move
      // summed over recent trials (single blocks are noisy), runs until the next trial; all
      // workers only when clearly faster.
      const std::uint64_t phase = timed_blocks_++ % kRetimeEvery;
      const bool parallel = phase < 2 ? (phase == 0) == trial_parallel_first_ : use_parallel_;
      const auto begin = std::chrono::steady_clock::now();
      RunBlock(items, parallel ? workers : 1);
      if (phase < 2) {
        const std::chrono::duration<double, std::nano> took =
            std::chrono::steady_clock::now() - begin;
        const std::size_t way = parallel ? 1 : 0;
        trial_ns_[way] = 0.75 * trial_ns_[way] + took.count();
        trial_moves_[way] = 0.75 * trial_moves_[way] + static_cast<double>(items.size());
      }
      if (phase == 1) {
        use_parallel_ = trial_ns_[1] * trial_moves_[0] < 0.95 * trial_ns_[0] * trial_moves_[1];
        trial_parallel_first_ = !trial_parallel_first_;
      }
      return;
    }
    RunBlock(items, workers);
  }

  void RunBlock(std::span<const std::uint32_t> items, unsigned workers) {
    if (outputs_.size() < workers) outputs_.resize(workers);
    if (workers == 1) {
      ComputeSuccessors(model_, items, /*lookup=*/false, outputs_[0]);
      StoreInOrder(outputs_[0]);
    } else if constexpr (ConcurrentModel<Model>) {
      while (model_workers_.size() < workers) model_workers_.emplace_back(model_);
      const auto part = [&](unsigned w) {
        const std::size_t from = items.size() * w / workers;
        return items.subspan(from, items.size() * (w + 1) / workers - from);
      };
      pool_.Run(workers, [&](unsigned w) {
        ComputeSuccessors(model_workers_[w], part(w), /*lookup=*/true, outputs_[w]);
      });
      StoreInParallel(workers);
    }
  }

  // Phase A: reads the search, writes only `out` (and the model's tables, through `source`).
  template <class Source>
  void ComputeSuccessors(Source& source, std::span<const std::uint32_t> items, bool lookup,
                         WorkerOutput& out) {
    out.candidates.clear();
    out.words.clear();
    out.round_parked.clear();
    out.delay_parked = 0;
    out.stats = {};
    out.lookup = lookup;
    for (const std::uint32_t item : items)
      Move(source, item >> 1, static_cast<MoveKind>(item & 1), out);
  }

  template <class Source>
  void Move(Source& source, std::uint32_t rec, MoveKind kind, WorkerOutput& out) {
    const NodeRecord node = records_[rec];
    const std::uint32_t finder = node.finder;
    const std::uint32_t next = finder + 1 == n_ ? 0 : finder + 1;
    const std::uint32_t rounds = node.rounds + (next == 0 ? 1 : 0);
    const std::uint32_t delays = node.delays + (kind == kDelay ? 1 : 0);
    if (delays > bounds_.delays) {
      ++out.delay_parked;
      return;
    }
    if (rounds > bounds_.rounds) {
      out.round_parked.push_back(Pack(rec, kind));
      return;
    }
    const Candidate here{rec, node.state, rounds, delays, next, true};
    if (kind == kDelay) {
      ++out.stats.transitions;
      ++out.stats.delay_moves;
      out.candidates.push_back(here);
      return;
    }
    ++out.stats.image_calls;
    out.scratch.resize(states_.width());
    states_.Get(node.state, out.scratch.data());
    bool any = false;
    source.ForEachSuccessor(StateView(out.scratch), next, [&](std::uint32_t, StateView succ) {
      any = true;
      ++out.stats.transitions;
      Candidate found = here;
      if (!out.lookup) {
        // One worker: the second phase's FindOrInsert is the only lookup.
      } else if (const auto id = states_.Find(succ)) {
        found.state = *id;
        out.candidates.push_back(found);
        return;
      }
      found.state = static_cast<std::uint32_t>(out.words.size() / states_.width());
      found.stored = false;
      out.candidates.push_back(found);
      out.words.insert(out.words.end(), succ.begin(), succ.end());
    });
    if (!any) {  // a stutter
      ++out.stats.transitions;
      out.candidates.push_back(here);
    }
  }

  // The second phase: stores what the first phase kept, in order.
  void StoreInOrder(const WorkerOutput& out) {
    stats_ += out.stats;
    const std::size_t width = states_.width();
    const std::size_t count = out.candidates.size();
    for (std::size_t i = 0; i < count; ++i) {
      // The key index is probed in the order of the block: fetch a later candidate's slot while
      // this one is stored.
      if (i + kPrefetchAhead < count && out.candidates[i + kPrefetchAhead].stored) {
        const Candidate& later = out.candidates[i + kPrefetchAhead];
        if (later.state < states_.size()) {
          __builtin_prefetch(&key_of_[KeySlot(later.state, later.finder)]);
        }
      }
      const Candidate& c = out.candidates[i];
      if (LimitReached()) return;
      if (c.stored) {
        DiscoverKey(c.state, c.finder, c.rounds, c.delays, c.parent, {});
      } else {
        DiscoverState(out.WordsOf(c, width), c.finder, c.rounds, c.delays, c.parent);
      }
    }
    TakeParked(out);
  }

  // Appends what the bounds stopped in the first phase to the frontiers, in block order.
  void TakeParked(const WorkerOutput& out) {
    round_parked_.insert(round_parked_.end(), out.round_parked.begin(), out.round_parked.end());
    delay_parked_ += out.delay_parked;
  }

  // Polls the time and memory limits (and Ctrl-C); true once the search is stopped.
  bool LimitReached() {
    if (limits_ != nullptr) {
      if (auto reason = limits_->Poll([this] { return NextGrowthBytes(); })) Stop(*reason);
    }
    return stopped_;
  }

  // The second phase with several workers. In block order, the states the first phase did not find
  // are stored; then each job decides, for the successors whose keys are in its shard and in block
  // order, which are dominated (by a pair kept before the block or earlier in it: domination is
  // transitive, so that is the sequential test); the kept ones get record ids in block order; and
  // each job stores its shard's records. Same records, ids and decisions as StoreInOrder.
  void StoreInParallel(unsigned workers) {
    block_.clear();
    fresh_.clear();
    const std::size_t width = states_.width();
    for (unsigned w = 0; w < workers && !stopped_; ++w) {
      const WorkerOutput& out = outputs_[w];
      stats_ += out.stats;
      for (Candidate c : out.candidates) {
        if (LimitReached()) return;
        if (!c.stored) {
          const auto found = states_.FindOrInsert(out.WordsOf(c, width));
          c.state = found.id;
          c.stored = true;
          if (found.is_new) fresh_.push_back(static_cast<std::uint32_t>(block_.size()));
        }
        block_.push_back(c);
      }
      TakeParked(out);
    }
    GrowKeyTable();  // before the jobs write their slots
    const auto shards = static_cast<unsigned>(shards_.size());
    shard_items_.resize(shards);
    touched_.resize(shards);
    shard_stats_.resize(shards);
    for (auto& items : shard_items_) items.clear();
    for (std::uint32_t i = 0; i < block_.size(); ++i) {
      shard_items_[ShardIndex(block_[i].state, block_[i].finder)].push_back(i);
    }
    outcome_.assign(block_.size(), kDrop);
    pool_.Run(shards, [this](unsigned shard) { Decide(shard); });
    const std::size_t base = records_.size();
    std::size_t kept = 0;
    ids_.resize(block_.size());
    for (std::uint32_t i = 0; i < block_.size(); ++i) {
      if (outcome_[i] != kDrop) ids_[i] = static_cast<std::uint32_t>(base + kept++);
      if (outcome_[i] == kNewKey) ++num_keys_;
    }
    for (ExploreStats& st : shard_stats_) {
      stats_ += st;
      st = {};
    }
    if (base + kept > kMaxRecords) {
      for (std::uint32_t i = 0; i < block_.size(); ++i) {
        if (outcome_[i] == kNewKey) key_of_[KeySlot(block_[i].state, block_[i].finder)] = 0;
      }
      Stop("more than 2^31 - 2 search nodes");
      return;
    }
    records_.resize(base + kept);
    if (keep_parents_) parents_.resize(base + kept);
    pool_.Run(shards, [this](unsigned shard) { Apply(shard); });
    for (std::size_t id = base; id < base + kept; ++id)
      next_.push_back(static_cast<std::uint32_t>(id));
    for (const std::uint32_t i : fresh_) {
      scratch_.resize(width);
      states_.Get(block_[i].state, scratch_.data());
      if (!listener_.OnNewState(ids_[i], StateView(scratch_))) {
        Stop("listener");
        return;
      }
    }
  }

  // Which of its shard's successors of the block are kept, as DiscoverKey would decide in order.
  void Decide(unsigned shard) {
    // Keys of the index given a new pair earlier in this block, and those pairs. (A key new in this
    // block is marked in its key-table slot instead, with the block index of its first pair.)
    auto& touched = touched_[shard];
    touched.clear();
    ExploreStats& st = shard_stats_[shard];
    const std::vector<std::uint32_t>& items = shard_items_[shard];
    for (std::size_t k = 0; k < items.size(); ++k) {
      if (k + kPrefetchAhead < items.size()) {
        const Candidate& later = block_[items[k + kPrefetchAhead]];
        __builtin_prefetch(&key_of_[KeySlot(later.state, later.finder)]);
      }
      const std::uint32_t i = items[k];
      const Candidate& c = block_[i];
      std::uint32_t& slot = key_of_[KeySlot(c.state, c.finder)];
      if (slot == 0) {
        outcome_[i] = kNewKey;
        slot = kInBlock | i;
        continue;
      }
      bool dominated = false;
      if ((slot & kInBlock) != 0) {
        const Candidate& first = block_[slot & ~kInBlock];
        dominated = first.rounds <= c.rounds && first.delays <= c.delays;
      } else {
        dominated = Dominated(slot - 1, c.rounds, c.delays);
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
  void Apply(unsigned shard) {
    for (const std::uint32_t i : shard_items_[shard]) {
      if (outcome_[i] == kDrop) continue;
      const Candidate& c = block_[i];
      const std::uint32_t rec = ids_[i];
      records_[rec] = MakeRecord(c.state, c.finder, c.rounds, c.delays);
      if (keep_parents_) parents_[rec] = c.parent;
      std::uint32_t& slot = key_of_[KeySlot(c.state, c.finder)];
      if (outcome_[i] == kNewKey) {
        slot = rec + 1;
      } else {
        AddPair(slot - 1, rec);
      }
    }
  }

  void DiscoverState(StateView s, std::uint32_t finder, std::uint32_t rounds, std::uint32_t delays,
                     std::uint32_t parent) {
    const auto found = states_.FindOrInsert(s);
    if (found.is_new) GrowKeyTable();
    DiscoverKey(found.id, finder, rounds, delays, parent, found.is_new ? s : StateView());
  }

  void DiscoverKey(std::uint32_t state_id, std::uint32_t finder, std::uint32_t rounds,
                   std::uint32_t delays, std::uint32_t parent, StateView new_state) {
    std::uint32_t& slot = key_of_[KeySlot(state_id, finder)];
    if (slot == 0) {
      const std::uint32_t rec = NewRecord(state_id, finder, rounds, delays, parent);
      slot = rec + 1;
      ++num_keys_;
      // `new_state` is the program state's words when it was stored just now.
      if (!new_state.empty() && !listener_.OnNewState(rec, new_state)) Stop("listener");
      return;
    }
    const std::uint32_t key = slot - 1;  // the key's representative record
    if (Dominated(key, rounds, delays)) {
      ++stats_.dominated;
      return;
    }
    ++stats_.reexpansions;
    const std::uint32_t rec = NewRecord(state_id, finder, rounds, delays, parent);
    AddPair(key, rec);
  }

  std::uint32_t NewRecord(std::uint32_t state_id, std::uint32_t finder, std::uint32_t rounds,
                          std::uint32_t delays, std::uint32_t parent) {
    // Record ids stay below kMaxRecords.
    if (records_.size() >= kMaxRecords) Stop("more than 2^31 - 2 search nodes");
    const auto rec = static_cast<std::uint32_t>(records_.size());
    records_.push_back(MakeRecord(state_id, finder, rounds, delays));
    if (keep_parents_) parents_.push_back(parent);
    next_.push_back(rec);
    return rec;
  }

  static NodeRecord MakeRecord(std::uint32_t state_id, std::uint32_t finder, std::uint32_t rounds,
                               std::uint32_t delays) {
    NodeRecord record{};
    record.state = state_id;
    record.rounds = rounds & kMaxBound;  // within the bounds, which are at most kMaxBound
    record.delays = delays & kMaxBound;
    record.finder = finder & (kMaxThreads - 1);
    return record;
  }

  static bool Dominates(const NodeRecord& a, std::uint32_t rounds, std::uint32_t delays) {
    return a.rounds <= rounds && a.delays <= delays;
  }

  // A key's pairs in the index: its pair with the fewest rounds (`first`, in the key table) and,
  // when it has more than one pair, the one with the fewest delays (Second). Its other pairs
  // are left out: they never decide whether a new pair is dominated. In Drain's order, a new
  // pair either has at least the rounds of every kept pair of its key (in the first search and
  // round raises) or at least its delays (in delay raises), so a kept pair dominates it exactly
  // when the pair with the fewest delays, or the one with the fewest rounds, does.
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
  // Whether a kept pair of the key whose first pair is `key` dominates (rounds, delays). (Were
  // Drain's order broken, this could miss a dominating pair: a pair would be kept twice, never
  // lost.)
  bool Dominated(std::uint32_t key, std::uint32_t rounds, std::uint32_t delays) const {
    const NodeRecord& first = records_[key];
    if (Dominates(first, rounds, delays)) return true;
    return first.has_second != 0 && Dominates(records_[Second(first)], rounds, delays);
  }

  // `rec` is a new Pareto pair of the key whose first pair is `key`: it may become the key's first
  // or second pair.
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

  Model& model_;
  Listener& listener_;
  LimitWatch* limits_;
  std::uint32_t n_;
  Bounds bounds_;
  bool stopped_ = false;
  std::string stop_reason_;
  ExploreStats stats_;

  PackedStateStore states_;               // program states
  ChunkedVector<std::uint32_t> parents_;  // per record: the record it was reached from
  bool keep_parents_ = true;
  ChunkedVector<NodeRecord> records_;  // kept Pareto pairs, in discovery order
  // Per (state, finder) (KeySlot): the key's representative record + 1, or 0 for no key yet.
  ChunkedVector<std::uint32_t> key_of_;
  static constexpr std::uint32_t kInBlock = 0x80000000;  // a slot marked by Decide
  std::size_t num_keys_ = 0;
  // The index of later pairs (declared after records_, which it points to).
  std::vector<Shard> shards_;  // one per job: the parallel store gives each job its own
  std::vector<std::uint32_t> round_parked_;  // packed (record, move) the round bound stopped
  // The delay frontier: the delay moves of the records with `delays == bounds_.delays`, all stored
  // at or after delay_watermark_ (implicit: a record's delay move is parked exactly when it has as
  // many delays as the bound); how many there are.
  std::size_t delay_watermark_ = 0;
  std::size_t delay_parked_ = 0;
  // Drain's layers: the parked moves a raise resumes, by depth; the moves of the layer being taken,
  // by their successors' delays; the records it stored.
  std::vector<std::uint32_t> pending_;
  DelayScan scan_;
  std::vector<std::uint32_t> resumed_;  // the resumed moves of the layer being taken
  std::vector<std::uint32_t> current_;
  std::vector<std::uint32_t> next_;
  unsigned jobs_ = 1;
  std::size_t parallel_min_ = kParallelMin;
  bool adaptive_ = false;
  static constexpr std::uint64_t kRetimeEvery = 16;
  std::uint64_t timed_blocks_ = 0;
  bool use_parallel_ = false;
  bool trial_parallel_first_ = true;
  // Time and moves of the trials' blocks, older trials weighing less: on one worker, on all.
  std::array<double, 2> trial_ns_{};
  std::array<double, 2> trial_moves_{};
  std::vector<WorkerOutput> outputs_;  // per worker of the first phase
  // The parallel store (StoreInParallel): the block's successors, which of them carried a new
  // state, each shard's share, the decisions, the record ids, per shard its keys given pairs in
  // this block and its counts.
  enum Outcome : std::uint8_t { kDrop, kNewKey, kNewPair };
  std::vector<Candidate> block_;
  std::vector<std::uint32_t> fresh_;
  std::vector<std::vector<std::uint32_t>> shard_items_;
  std::vector<Outcome> outcome_;
  std::vector<std::uint32_t> ids_;
  std::vector<absl::flat_hash_map<std::uint64_t, absl::InlinedVector<std::uint32_t, 2>>> touched_;
  std::vector<ExploreStats> shard_stats_;
  std::vector<Word> scratch_;
  std::vector<typename WorkerOf<Model>::type> model_workers_;
  WorkerPool pool_;  // last: its threads stop before the rest goes
};

}  // namespace druba
