// The upper bound O of the sandwich proof (DESIGN.md section 8; one process:
// abstraction/upper_bound.h) computed by several processes. Each abstract state belongs to the
// process a hash of it names that is the same for every state of its orbit under the thread
// symmetry (AbstractOwners), so a state's whole orbit lives at one process, which the lower
// bound's test (orbit_search.h) relies on. Abstract words are self-contained (a kind's abstract
// state names shared states and symbols, never ids of a table of one process), so they travel as
// they are.
//
// The same Kleene iteration as one process's: each pass makes the oracle from the set as it
// stands, and expands every state with it, those the pass adds included. The oracle reads the set
// only through facts that merge by union (for CPDS the may-lie-below relation's VisibleFacts), so
// each process reads its part's facts, every process gets every part's, and all make the same
// oracle. A pass is supersteps: each process expands its unexpanded states until its outgoing
// successors reach the batch size, sends them to their owners in one exchange, and the owners
// insert them; the pass ends when no process has a state left to expand. Then, as in one process:
// no growth, or an oracle made from the grown set that enumerates the same successors (SameAs),
// ends the iteration. Every pass computes the closure of the same set under the same oracle as one
// process, whatever the order, so O, its size, the passes and the successors enumerated are the
// single-process ones (tests/distributed).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "abstraction/upper_bound.h"
#include "common/resources.h"
#include "distributed/comm.h"
#include "distributed/progress.h"
#include "explore/canonical.h"
#include "explore/state_store.h"

namespace druba::distributed {

// The abstract post of every action of every thread, with what the abstraction hides resolved by
// an oracle made from a set (abstraction/upper_bound.h).
class AbstractPost {
 public:
  virtual ~AbstractPost() = default;
  virtual void ForEachSuccessor(StateView abstract,
                                const std::function<void(StateView)>& yield) const = 0;
  // Whether `other` (made by the same kind) enumerates the same successors.
  virtual bool SameAs(const AbstractPost& other) const = 0;
  // Non-empty when a solver query could not be decided: what was enumerated is then not the
  // whole post, and O must not be used.
  virtual std::string Undecided() const { return {}; }
  // A state this process added to the set (never while it enumerates): an oracle that reads the
  // set itself may read it at once; one made from facts keeps what it was made from.
  virtual void Add(StateView /*abstract*/) {}
};

// A kind's closure oracle (abstraction/abstraction.h: ForEachAbstractSuccessor, SameAs) as an
// AbstractPost.
template <class Oracle>
class PostOf final : public AbstractPost {
 public:
  explicit PostOf(Oracle oracle) : oracle_(std::move(oracle)) {}
  void ForEachSuccessor(StateView abstract,
                        const std::function<void(StateView)>& yield) const override {
    oracle_.ForEachAbstractSuccessor(
        abstract,
        [&](std::uint32_t /*thread*/, std::uint32_t /*action*/, StateView to) { yield(to); });
  }
  bool SameAs(const AbstractPost& other) const override {
    if constexpr (requires(const Oracle& a) { a.SameAs(a); }) {
      return oracle_.SameAs(static_cast<const PostOf&>(other).oracle_);
    } else {
      return false;  // the iteration ends when a pass adds nothing
    }
  }
  std::string Undecided() const override {
    if constexpr (requires(const Oracle& a) { a.undecided(); }) {
      return std::string(oracle_.undecided());
    } else {
      return {};
    }
  }

 private:
  Oracle oracle_;
};

// What the sandwich proof needs from a model kind, over its abstract states.
struct SandwichKind {
  std::size_t width = 0;
  ThreadSymmetry symmetry;           // of the abstract states (classes may be empty)
  ThreadSymmetry concrete_symmetry;  // of the concrete states; empty classes: no orbit search
  bool has_property = false;         // a property was given: O free of violations answers
  // The facts the oracle reads off a part of the set, as bytes; the oracle made from every
  // process's facts.
  std::function<std::vector<std::uint8_t>(const StateStore& part)> facts;
  std::function<std::unique_ptr<AbstractPost>(const std::vector<std::vector<std::uint8_t>>& all)>
      oracle;
  std::function<bool(StateView abstract)> violates;
  // The search over orbits stops unanswered after this many successor calls (summed over the
  // processes), as druba's head start (SandwichSetup::symmetric_head_start).
  std::uint64_t orbit_search_calls = std::uint64_t{1} << 22;
  // O stops unfinished beyond this many abstract states, summed over the processes (as one
  // process's bound: top_k.cc's for CPDS, predabs::MakeSandwich's for predicates).
  std::uint64_t max_states = std::uint64_t{1} << 31;
  // The oracle reads the set itself (SetPost), as one process's reads the set as it grows within
  // a pass: it is made anew from the grown set after each exchange of a pass (fewer passes). A
  // pass that adds nothing still used oracle(S) throughout, so the result is the same.
  bool reads_growing_set = false;
};

// Owners of abstract states: by a hash that is the same for every state of an orbit, without
// computing the canonical form (sorting each successor's components cost more than the rest of
// the upper bound's work): the words before the components and the fixed threads' components in
// order, and for each class of interchangeable threads the sum of its components' hashes.
class AbstractOwners {
 public:
  AbstractOwners(const Comm& comm, std::size_t width, const ThreadSymmetry& symmetry)
      : processes_(static_cast<std::uint64_t>(comm.size())),
        // Without a component layout the whole state is hashed.
        first_(symmetry.component_width == 0 ? width : symmetry.first_component),
        component_(symmetry.component_width),
        sums_(symmetry.classes.size()) {
    const std::size_t threads = component_ == 0 ? 0 : (width - first_) / component_;
    class_of_.assign(threads, kFixed);
    for (std::size_t c = 0; c < symmetry.classes.size(); ++c) {
      for (const std::uint32_t t : symmetry.classes[c]) class_of_[t] = c;
    }
  }
  int Of(StateView abstract) {
    if (processes_ == 1) return 0;
    std::uint64_t hash = Words(abstract.data(), first_, 0);
    std::fill(sums_.begin(), sums_.end(), 0);
    for (std::size_t t = 0; t < class_of_.size(); ++t) {
      const Word* component = abstract.data() + first_ + t * component_;
      if (class_of_[t] == kFixed) {
        hash = Words(component, component_, hash);
      } else {
        sums_[class_of_[t]] += Words(component, component_, 0);
      }
    }
    for (const std::uint64_t sum : sums_) hash = Mix(hash ^ sum);
    return static_cast<int>(hash % processes_);
  }

 private:
  // A few words, hashed inline (a library call per component cost a fifth of the search).
  static std::uint64_t Mix(std::uint64_t x) {  // splitmix64's finalizer
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
    return x ^ (x >> 31);
  }
  static std::uint64_t Words(const Word* words, std::size_t count, std::uint64_t seed) {
    std::uint64_t hash = seed;
    for (std::size_t i = 0; i < count; ++i) hash = Mix(hash + 0x9E3779B97F4A7C15ULL + words[i]);
    return hash;
  }

  static constexpr std::size_t kFixed = ~std::size_t{0};
  std::uint64_t processes_;
  std::size_t first_;
  std::size_t component_;
  std::vector<std::size_t> class_of_;  // per thread: its class, or kFixed
  std::vector<std::uint64_t> sums_;
};

// Abstract states queued for their owners, as raw words (`width` of them each).
inline void QueueAbstract(StateView abstract, std::vector<std::uint8_t>& box) {
  const std::size_t at = box.size();
  box.resize(at + abstract.size() * sizeof(Word));
  std::memcpy(box.data() + at, abstract.data(), abstract.size() * sizeof(Word));
}

// Calls `each` on every abstract state of `bytes`; false when they are not whole states.
template <class Each>
bool ForEachAbstract(const std::vector<std::uint8_t>& bytes, std::size_t width, Each&& each) {
  const std::size_t size = width * sizeof(Word);
  if (size == 0 || bytes.size() % size != 0) return false;
  std::vector<Word> words(width);
  for (std::size_t at = 0; at < bytes.size(); at += size) {
    std::memcpy(words.data(), bytes.data() + at, size);
    each(StateView(words));
  }
  return true;
}

// For a kind whose oracle reads the set itself (predicate abstraction: every thread's view lies
// in it), the facts of a part are its states, and the oracle is made from a copy of the whole
// set, which it owns. One process's oracle reads the set as it grows within a pass; this one
// reads the states its process adds at once (Add), and the others' from the copy made after each
// exchange (SandwichKind::reads_growing_set). The oracle only admits more as the set grows, so
// both iterations end at the same least fixed point, the same O; with several processes the
// distributed one may take more passes.
inline std::vector<std::uint8_t> StatesAsFacts(const StateStore& part) {
  std::vector<std::uint8_t> bytes;
  for (std::uint32_t id = 0; id < part.size(); ++id) QueueAbstract(part.Get(id), bytes);
  return bytes;
}

template <class Abs>
class SetPost final : public AbstractPost {
 public:
  // Throws std::runtime_error when a part is not whole states.
  SetPost(const Abs& abs, const std::vector<std::vector<std::uint8_t>>& parts)
      : set_(std::make_unique<StateStore>(abs.width())), post_(abs.MakeClosureOracle(*set_)) {
    for (const std::vector<std::uint8_t>& part : parts) {
      if (!ForEachAbstract(part, abs.width(), [this](StateView a) { set_->FindOrInsert(a); }) &&
          !part.empty()) {
        throw std::runtime_error("a process sent abstract states it cannot read");
      }
    }
  }
  void ForEachSuccessor(StateView abstract,
                        const std::function<void(StateView)>& yield) const override {
    post_.ForEachSuccessor(abstract, yield);
  }
  bool SameAs(const AbstractPost& /*other*/) const override { return false; }
  std::string Undecided() const override { return post_.Undecided(); }
  void Add(StateView abstract) override { set_->FindOrInsert(abstract); }

 private:
  std::unique_ptr<StateStore> set_;  // the oracle reads it: it lives as long as the oracle
  PostOf<typename Abs::ClosureOracle> post_;
};

// Sends the states of `part` from id `from` on to process 0, which adds them to `into` (left
// as it is elsewhere). Collective.
inline void GatherStates(const Comm& comm, const StateStore& part, std::size_t from,
                         StateStore& into) {
  std::vector<std::uint8_t> bytes;
  for (auto id = static_cast<std::uint32_t>(from); id < part.size(); ++id) {
    QueueAbstract(part.Get(id), bytes);
  }
  for (const std::vector<std::uint8_t>& sent : comm.Gather(bytes)) {
    ForEachAbstract(sent, part.width(), [&into](StateView state) { into.FindOrInsert(state); });
  }
}

class DistributedUpperBound {
 public:
  using Status = UpperBoundSearch::Status;

  DistributedUpperBound(Comm& comm, const SandwichKind& kind, std::size_t batch_bytes,
                        LimitWatch* limits)
      : comm_(&comm),
        kind_(&kind),
        batch_bytes_(batch_bytes),
        limits_(limits),
        owners_(comm, kind.width, kind.symmetry),
        part_(std::make_unique<StateStore>(kind.width)),
        outboxes_(static_cast<std::size_t>(comm.size())) {}

  // An abstract initial state (every process gives all of them; each keeps its own).
  void AddInitial(StateView abstract) {
    if (owners_.Of(abstract) == comm_->rank()) part_->FindOrInsert(abstract);
  }

  // O, or a stop (a limit, or too many states). Collective.
  Status Run() {
    const Stopwatch clock;
    std::unique_ptr<AbstractPost> oracle;
    while (status_ == Status::kRunning) {
      ++stats_.passes;
      const std::uint64_t start = comm_->Sum(part_->size());
      if (!oracle) oracle = kind_->oracle(comm_->AllGather(kind_->facts(*part_)));
      cursor_ = 0;
      if (!Pass(start, oracle)) break;
      if (comm_->Sum(part_->size()) == start) {
        status_ = Status::kDone;
        break;
      }
      std::unique_ptr<AbstractPost> next = kind_->oracle(comm_->AllGather(kind_->facts(*part_)));
      if (next->SameAs(*oracle)) status_ = Status::kDone;
      oracle = std::move(next);  // the next pass's, made from the set as it stands
    }
    stats_.successors = comm_->Sum(successors_);
    stats_.time_s = clock.Seconds();
    return status_;
  }

  // Reports progress when `ticker` finds it due (null: never). Call it at every process.
  void SetProgress(ProgressTicker* ticker) { ticker_ = ticker; }

  // This process's part of O (all of it once Run returned kDone).
  const StateStore& part() const { return *part_; }
  std::uint64_t size() const { return comm_->Sum(part_->size()); }  // collective
  const UpperBoundStats& stats() const { return stats_; }
  std::uint64_t states_sent() const { return sent_; }  // this process's, to their owners
  const std::string& stop_reason() const { return stop_reason_; }

 private:
  // Expands every state not yet expanded in this pass, until no process has one left; false when
  // some process stopped.
  // `made_at`: the summed size of the set `oracle` was made from.
  bool Pass(std::uint64_t made_at, std::unique_ptr<AbstractPost>& oracle) {
    std::vector<Word> from(kind_->width);
    std::vector<Word> found;  // this process's successors of a state, added after enumerating
    const auto insert = [&oracle, this](StateView to) {
      if (part_->FindOrInsert(to).is_new) oracle->Add(to);
    };
    for (;;) {
      for (std::vector<std::uint8_t>& box : outboxes_) box.clear();
      std::size_t queued = 0;
      while (cursor_ < part_->size() && queued < batch_bytes_ && !stopped_) {
        const StateView state = part_->Get(cursor_++);
        from.assign(state.begin(), state.end());
        ++successors_;
        found.clear();
        oracle->ForEachSuccessor(StateView(from), [&](StateView to) {
          ++successors_;
          // A superstep's work is bounded by its successors' bytes, whoever owns them.
          queued += to.size() * sizeof(Word);
          const int owner = owners_.Of(to);
          if (owner == comm_->rank()) {
            found.insert(found.end(), to.begin(), to.end());
          } else {
            QueueAbstract(to, outboxes_[static_cast<std::size_t>(owner)]);
            ++sent_;
          }
        });
        for (std::size_t at = 0; at < found.size(); at += kind_->width) {
          insert(StateView(found.data() + at, kind_->width));
        }
        if (std::string why = oracle->Undecided(); !why.empty()) {
          Stop("a solver query was undecided: " + why);
        }
        Poll();
      }
      if (!ForEachAbstract(comm_->Exchange(outboxes_), kind_->width, insert) && !stopped_) {
        Stop("a process received an abstract state it cannot read");
      }
      const std::uint64_t total = comm_->Sum(part_->size());
      if (total > kind_->max_states) {
        Stop("it has more than " + std::to_string(kind_->max_states) + " abstract states");
      }
      std::string reason = stop_reason_;
      if (comm_->AnyStopped(stopped_, reason)) {
        stopped_ = true;
        stop_reason_ = reason;
        status_ = Status::kStopped;
        return false;
      }
      if (ticker_ != nullptr) {
        ticker_->ReportIfDue(*comm_, "upper bound O, pass " + std::to_string(stats_.passes),
                             "abstract states", part_->size());
      }
      if (comm_->Max(cursor_ < part_->size() ? 1 : 0) == 0) return true;
      if (kind_->reads_growing_set && total > made_at) {
        oracle = kind_->oracle(comm_->AllGather(kind_->facts(*part_)));
        made_at = total;
      }
    }
  }

  // A memory limit stops the search before the set's next doubling, not after it.
  void Poll() {
    if (limits_ == nullptr || stopped_) return;
    if (auto reason = limits_->Poll([this] { return part_->NextGrowth(); })) Stop(*reason);
  }
  void Stop(std::string reason) {
    if (stopped_) return;
    stopped_ = true;
    stop_reason_ = std::move(reason);
  }

  Comm* comm_;
  const SandwichKind* kind_;
  std::size_t batch_bytes_;
  LimitWatch* limits_;
  AbstractOwners owners_;
  std::unique_ptr<StateStore> part_;
  std::vector<std::vector<std::uint8_t>> outboxes_;
  std::uint32_t cursor_ = 0;
  std::uint64_t successors_ = 0;  // this process's, summed into stats_ at the end
  std::uint64_t sent_ = 0;
  Status status_ = Status::kRunning;
  bool stopped_ = false;
  std::string stop_reason_;
  UpperBoundStats stats_;
  ProgressTicker* ticker_ = nullptr;
};

}  // namespace druba::distributed
