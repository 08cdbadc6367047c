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
// The explorer puts together four parts, each in its own file:
// - frontier.h: the parked moves, and the order of moves (layers in increasing depth, within a
//   layer increasing delays of the successors), in which a kept pair is never dominated later;
// - pareto_index.h: per key, the two pairs that decide domination in that order;
// - block.h: a block of moves expanded in two phases, the first on every worker, the second in
//   block order or sharded by key (the parallel store), with the same records either way;
// - path_search.h: a violation's path found backwards over the records, without parent links.
// It knows nothing about the model's states beyond their words: the Model gives initial states
// and per-thread successors, and a Listener hears about every new program state.
#pragma once

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "common/resources.h"
#include "common/worker_pool.h"
#include "explore/block.h"
#include "explore/chunked_vector.h"
#include "explore/frontier.h"
#include "explore/model.h"
#include "explore/node.h"
#include "explore/pareto_index.h"
#include "explore/path_search.h"
#include "explore/state_store.h"

namespace druba {

template <ExplorableModel Model, ExploreListener Listener>
class Explorer {
 public:
  static constexpr unsigned kMaxJobs = 64;
  static constexpr std::size_t kParallelMin = 2048;  // smaller blocks run on the caller alone

  Explorer(Model& model, Listener& listener, LimitWatch* limits = nullptr)
      : model_(&model),
        listener_(&listener),
        limits_(limits),
        n_(model.num_threads()),
        states_(model.state_width()),
        index_(records_, n_),
        frontier_(records_, n_) {
    if (n_ > kMaxThreads) Stop("more than " + std::to_string(kMaxThreads) + " threads");
  }
  // The index and the frontier point into records_: no copies.
  Explorer(const Explorer&) = delete;
  Explorer& operator=(const Explorer&) = delete;

  // Computes R(bounds) from the initial states. Returns false if the search was stopped.
  bool Start(Bounds bounds = {}) {
    if (bounds.rounds > kMaxBound || bounds.delays > kMaxBound) {
      return Stop("bound above " + std::to_string(kMaxBound));
    }
    bounds_ = bounds;
    model_->ForEachInitial([&](StateView s) {
      if (!stopped_) DiscoverState(s, n_ - 1, 0, 0, kNoParent);
    });
    return Drain();
  }

  // R(r,d) -> R(r+1,d), expanding only the moves the old round bound parked.
  bool RaiseRounds() {
    if (!BeginRaise(bounds_.rounds)) return false;
    frontier_.ResumeRounds();
    return Drain();
  }
  // R(r,d) -> R(r,d+1), expanding only the moves the old delay bound parked.
  bool RaiseDelays() {
    const std::uint32_t old_bound = bounds_.delays;
    if (!BeginRaise(bounds_.delays)) return false;
    frontier_.ResumeDelays(old_bound);
    return Drain();
  }

  // Goes on with another model of the same program (the same state layout and successors: a
  // later refinement round's, whose abstraction alone differs), another listener and limits.
  void Rebind(Model& model, Listener& listener, LimitWatch* limits) {
    model_ = &model;
    listener_ = &listener;
    limits_ = limits;
    model_workers_.clear();
  }
  // Stops the search from outside (a listener shown stored states by someone else said stop).
  void Halt(std::string reason) { Stop(std::move(reason)); }

  Bounds bounds() const { return bounds_; }
  bool stopped() const { return stopped_; }
  // Nothing is left to expand at any larger bound: no move is parked on either frontier (every
  // parked move was resumed and stored nothing new, or was dominated). Then no raise can store a
  // search node, so the stored program states are every reachable one, R itself (DESIGN.md
  // section 9). False once stopped: a stopped search is incomplete.
  bool exhausted() const { return !stopped_ && frontier_.parked_moves() == 0; }
  // Whether a round raise would resume any move (else only a delay raise can).
  bool round_moves_parked() const { return frontier_.round_parked_moves() > 0; }
  // Whether a delay raise would resume any move.
  bool delay_moves_parked() const {
    return frontier_.parked_moves() > frontier_.round_parked_moves();
  }
  const std::string& stop_reason() const { return stop_reason_; }
  const ExploreStats& stats() const { return stats_; }
  std::uint32_t num_threads() const { return n_; }

  std::size_t num_states() const { return states_.size(); }
  std::size_t state_width() const { return states_.width(); }
  std::size_t num_keys() const { return num_keys_; }
  std::size_t num_records() const { return records_.size(); }
  std::size_t parked_moves() const { return frontier_.parked_moves(); }
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
    std::size_t parked = 0;   // the round and delay frontiers, and the layers being taken
    std::size_t Total() const { return states + keys + records + parents + pairs + parked; }
  };
  Memory MemoryUse() const {
    Memory m;
    m.states = states_.MemoryBytes();
    m.pairs = index_.SecondPairsBytes();
    m.keys = index_.KeyTableBytes();
    m.records = records_.capacity() * sizeof(NodeRecord);
    m.parents = parents_.capacity() * sizeof(std::uint32_t);
    m.parked = frontier_.MemoryBytes() +
               (current_.capacity() + next_.capacity()) * sizeof(std::uint32_t) +
               parallel_.MemoryBytes();
    for (const WorkerOutput& out : outputs_) m.parked += out.Capacity();
    return m;
  }
  std::size_t MemoryBytes() const { return MemoryUse().Total(); }

  // What the next growth of the big tables and arrays would allocate at once, counting only those
  // close to growing (between two limit checks a few thousand nodes are added).
  Growth NextGrowth() const {
    Growth growth = states_.NextGrowth();
    growth += index_.NextGrowth();
    growth += frontier_.NextGrowth();
    if (next_.size() * 10 >= next_.capacity() * 9)
      growth.bytes += static_cast<double>(next_.capacity() * 2 * sizeof(std::uint32_t));
    return growth;
  }

  // The records from an initial node to `id`, in path order: by the parent links when they are
  // kept, else found backwards (path_search.h).
  std::vector<std::uint32_t> PathTo(std::uint32_t id) const {
    if (!keep_parents_) return SearchPathTo(id);
    std::vector<std::uint32_t> path;
    for (std::uint32_t r = id; r != kNoParent; r = parents_[r]) path.push_back(r);
    return {path.rbegin(), path.rend()};
  }
  std::vector<std::uint32_t> SearchPathTo(std::uint32_t id) const {
    return SearchPathBack(*model_, records_, states_, id);
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
    index_.SetShards(jobs_);
  }
  unsigned jobs() const { return jobs_; }

  // For tests: an empty string when the index of pairs is exact and each key's pairs are pairwise
  // incomparable (ParetoIndex::Check); otherwise what is wrong.
  std::string CheckParetoIndex() const { return index_.Check(num_keys_); }

  // Parent links (4 bytes per search node): PathTo follows them instead of searching backwards.
  // The driver keeps none; tests keep them as the reference the backward search is checked
  // against. Call before Start().
  void KeepParents(bool keep) { keep_parents_ = keep; }
  bool keeps_parents() const { return keep_parents_; }

 private:
  static constexpr std::size_t kBlockItems = std::size_t{1} << 13;  // moves expanded per block
  static constexpr std::size_t kPrefetchAhead = 8;

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

  // Takes the layers (frontier.h) until none is left or the search stops.
  bool Drain() {
    while (!stopped_ && frontier_.NextLayer(next_, current_)) Expand(current_);
    // The layers are empty between raises: give their memory back.
    frontier_.EndRaise();
    std::vector<std::uint32_t>().swap(current_);
    std::vector<std::uint32_t>().swap(next_);
    for (WorkerOutput& out : outputs_) out = WorkerOutput();
    parallel_.Release();
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
      ComputeSuccessors(*model_, items, /*lookup=*/false, outputs_[0]);
      StoreInOrder(outputs_[0]);
    } else if constexpr (ConcurrentModel<Model>) {
      while (model_workers_.size() < workers) model_workers_.emplace_back(*model_);
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

  // The first phase: reads the search, writes only `out` (and the model's tables, through
  // `source`).
  template <class Source>
  void ComputeSuccessors(Source& source, std::span<const std::uint32_t> items, bool lookup,
                         WorkerOutput& out) {
    out.candidates.clear();
    out.words.clear();
    out.round_parked.clear();
    out.delay_parked = 0;
    out.stats = {};
    out.lookup = lookup;
    for (const std::uint32_t item : items) Move(source, MoveRecord(item), MoveKindOf(item), out);
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
      out.round_parked.push_back(PackMove(rec, kind));
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
        if (later.state < states_.size()) index_.Prefetch(later.state, later.finder);
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
    frontier_.ParkRounds(out.round_parked);
    frontier_.CountDelaysParked(out.delay_parked);
  }

  // Polls the time and memory limits (and Ctrl-C); true once the search is stopped.
  bool LimitReached() {
    if (limits_ != nullptr) {
      if (auto reason = limits_->Poll([this] { return NextGrowth(); })) Stop(*reason);
    }
    return stopped_;
  }

  // The second phase with several workers (block.h): the new program states in block order, then
  // the keys' decisions and records, sharded.
  void StoreInParallel(unsigned workers) {
    parallel_.Begin();
    const std::size_t width = states_.width();
    for (unsigned w = 0; w < workers && !stopped_; ++w) {
      const WorkerOutput& out = outputs_[w];
      stats_ += out.stats;
      for (Candidate c : out.candidates) {
        if (LimitReached()) return;
        bool fresh = false;
        if (!c.stored) {
          const auto found = states_.FindOrInsert(out.WordsOf(c, width));
          c.state = found.id;
          c.stored = true;
          fresh = found.is_new;
        }
        parallel_.Add(c, fresh);
      }
      TakeParked(out);
    }
    index_.Grow(states_.size());  // before the jobs write their slots
    parallel_.Decide(index_, pool_);
    const std::size_t base = records_.size();
    const auto [kept, new_keys] = parallel_.AssignIds(base, stats_);
    if (base + kept > kMaxRecords) {
      parallel_.Abandon(index_);
      Stop("more than 2^31 - 2 search nodes");
      return;
    }
    num_keys_ += new_keys;
    records_.resize(base + kept);
    if (keep_parents_) parents_.resize(base + kept);
    parallel_.Apply(index_, records_, keep_parents_ ? &parents_ : nullptr, pool_);
    for (std::size_t id = base; id < base + kept; ++id) {
      next_.push_back(static_cast<std::uint32_t>(id));
    }
    parallel_.ForEachFresh([this](std::uint32_t state, std::uint32_t rec) {
      if (stopped_) return;
      scratch_.resize(states_.width());
      states_.Get(state, scratch_.data());
      if (!listener_->OnNewState(rec, StateView(scratch_))) Stop("listener");
    });
  }

  void DiscoverState(StateView s, std::uint32_t finder, std::uint32_t rounds, std::uint32_t delays,
                     std::uint32_t parent) {
    const auto found = states_.FindOrInsert(s);
    if (found.is_new) index_.Grow(states_.size());
    DiscoverKey(found.id, finder, rounds, delays, parent, found.is_new ? s : StateView());
  }

  void DiscoverKey(std::uint32_t state_id, std::uint32_t finder, std::uint32_t rounds,
                   std::uint32_t delays, std::uint32_t parent, StateView new_state) {
    std::uint32_t& slot = index_.Slot(state_id, finder);
    if (slot == 0) {
      const std::uint32_t rec = NewRecord(state_id, finder, rounds, delays, parent);
      slot = rec + 1;
      ++num_keys_;
      // `new_state` is the program state's words when it was stored just now.
      if (!new_state.empty() && !listener_->OnNewState(rec, new_state)) Stop("listener");
      return;
    }
    const std::uint32_t key = slot - 1;  // the key's representative record
    if (index_.Dominated(key, rounds, delays)) {
      ++stats_.dominated;
      return;
    }
    ++stats_.reexpansions;
    const std::uint32_t rec = NewRecord(state_id, finder, rounds, delays, parent);
    index_.AddPair(key, rec);
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

  Model* model_;
  Listener* listener_;
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
  std::size_t num_keys_ = 0;
  ParetoIndex index_;  // (declared after records_, which it points to)
  Frontier frontier_;
  std::vector<std::uint32_t> current_;  // the moves of the layer being taken
  std::vector<std::uint32_t> next_;     // the records it stored
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
  ParallelStore parallel_;
  std::vector<Word> scratch_;
  std::vector<typename WorkerOf<Model>::type> model_workers_;
  WorkerPool pool_;  // last: its threads stop before the rest goes
};

}  // namespace druba
