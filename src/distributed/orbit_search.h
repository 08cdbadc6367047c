// The lower bound of the sandwich proof by the search over one state per orbit (one process:
// abstraction/symmetric_search.h, which says why it is sound), computed by several processes.
// A concrete state belongs to the process its canonical bytes hash to (OrbitModel: the stacks of
// interchangeable threads in byte order, the same bytes at every process, unlike the canonical
// form of explore/canonical.h, whose order is that of one process's stack ids); the owner reads
// them into a state of its own tables and stores it. Each new state's abstraction goes to the
// process that owns its orbit in O (upper_bound.h), which checks that O holds it and adds it to
// its part of Sym(U). Those parts are disjoint unions of whole orbits, so |Sym(U)| is the sum of
// the parts' sizes, and "O lies in Sym(U)" is checked by each process on its own part of O.
//
// Breadth first, as one process's search, in supersteps by level: each process expands its states
// of the current level until their successors reach the batch size; one exchange takes them to
// their owners, a second the new states' abstractions to theirs; the next level starts when no
// process has a state of this one left. (Expanding whatever a process holds, level or not, lets
// each process run deep along its own states while a path that crosses processes waits a
// superstep per crossing: on Stefan-8 the budget ran out before Sym(U) covered O, where breadth
// first covers it after 6,618 states.) The search ends when Sym(U) covers O (|Sym(U)| = |O|), when
// no process has a state left to expand (the orbits of every reachable state were found: Sym(U) is
// alpha(R)), after its budget of successor calls, or at a limit.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "abstraction/symmetry.h"
#include "common/resources.h"
#include "distributed/comm.h"
#include "distributed/progress.h"
#include "distributed/search.h"
#include "distributed/upper_bound.h"
#include "explore/portable.h"
#include "explore/state_store.h"

namespace druba::distributed {

template <OrbitModel Model>
class DistributedOrbitSearch {
 public:
  enum class Status : std::uint8_t { kCovered, kExhausted, kBudget, kStopped };

  // `o_part`: this process's part of O (`o_size` states in all), as DistributedUpperBound left it.
  DistributedOrbitSearch(Comm& comm, Model& model, const SandwichKind& kind,
                         std::function<void(StateView, std::span<Word>)> abstract,
                         const StateStore& o_part, std::uint64_t o_size, std::size_t batch_bytes,
                         LimitWatch* limits)
      : comm_(&comm),
        model_(&model),
        kind_(&kind),
        abstract_(std::move(abstract)),
        o_part_(&o_part),
        o_size_(o_size),
        batch_bytes_(batch_bytes),
        limits_(limits),
        states_(model.state_width()),
        owners_(comm, kind.width, kind.symmetry),
        lower_(kind.width, kind.symmetry),
        successors_(static_cast<std::size_t>(comm.size())),
        abstracts_(static_cast<std::size_t>(comm.size())),
        scratch_(model.state_width()),
        image_(kind.width) {}

  // Collective.
  Status Run() {
    model_->ForEachInitial([&](StateView s) { Route(s); });
    level_end_ = static_cast<std::uint32_t>(states_.size());
    for (;;) {
      Superstep();
      std::string reason = stop_reason_;
      if (comm_->AnyStopped(stopped_, reason)) {
        stop_reason_ = reason;
        return Status::kStopped;
      }
      if (comm_->Max(outside_ ? 1 : 0) != 0) {
        throw std::logic_error(
            "a reached abstract state lies outside the upper bound O: O is not an upper bound");
      }
      if (comm_->Sum(lower_.size()) >= o_size_) return Covered();
      if (comm_->Sum(calls_) >= kind_->orbit_search_calls) return Status::kBudget;
      if (ticker_ != nullptr) {
        ticker_->ReportIfDue(*comm_, "search over orbits", "states", states_.size());
      }
      if (comm_->Max(next_ < level_end_ ? 1 : 0) != 0) continue;  // this level goes on
      if (comm_->Max(next_ < states_.size() ? 1 : 0) == 0) return Status::kExhausted;
      level_end_ = static_cast<std::uint32_t>(states_.size());
    }
  }

  // Reports progress when `ticker` finds it due (null: never). Call it at every process.
  void SetProgress(ProgressTicker* ticker) { ticker_ = ticker; }

  // Summed over the processes. Collective.
  std::uint64_t states() const { return comm_->Sum(states_.size()); }
  std::uint64_t successor_calls() const { return comm_->Sum(calls_); }
  std::uint64_t reached() const { return comm_->Sum(lower_.size()); }
  const std::string& stop_reason() const { return stop_reason_; }
  // This process's states and abstract states sent to their owners.
  std::uint64_t states_sent() const { return sent_; }

 private:
  // |Sym(U)| = |O|: O lies in Sym(U) when each part of O lies in its part of Sym(U).
  Status Covered() {
    bool inside = true;
    for (std::uint32_t id = 0; id < o_part_->size() && inside; ++id) {
      inside = lower_.Contains(o_part_->Get(id));
    }
    if (comm_->Min(inside ? 1 : 0) == 0) {
      throw std::logic_error(
          "|Sym(U)| = |O| but O holds a state outside Sym(U): O is not closed under the thread "
          "symmetry");
    }
    return Status::kCovered;
  }

  void Superstep() {
    for (std::vector<std::uint8_t>& box : successors_) box.clear();
    std::size_t queued = 0;
    while (next_ < level_end_ && queued < batch_bytes_ && !stopped_) {
      states_.Get(next_++, scratch_.data());
      for (std::uint32_t t = 0; t < model_->num_threads(); ++t) {
        ++calls_;
        model_->ForEachSuccessor(StateView(scratch_), t,
                                 [&](std::uint32_t, StateView succ) { queued += Route(succ); });
      }
      if (limits_ != nullptr) {
        if (auto reason = limits_->Poll([this] { return states_.NextGrowth(); })) {
          Stop(*reason);
        }
      }
    }
    const std::vector<std::uint8_t> received = comm_->Exchange(successors_);
    const std::span<const std::uint8_t> all(received);
    for (std::size_t at = 0; at < all.size() && !stopped_;) {
      std::uint64_t length = 0;
      if (!GetVarint(all, at, length) || length > all.size() - at) {
        Stop("a process received a state it cannot read");
        break;
      }
      Insert(all.subspan(at, length));
      at += length;
    }
    const auto watch = [this](StateView abstract) { Watch(abstract); };
    if (!ForEachAbstract(comm_->Exchange(abstracts_), kind_->width, watch) && !stopped_) {
      Stop("a process received an abstract state it cannot read");
    }
    for (std::vector<std::uint8_t>& box : abstracts_) box.clear();
  }

  // Sends a state's canonical bytes to their owner (inserting them here when that is this
  // process); returns their size, which bounds a superstep's work whoever owns them.
  std::size_t Route(StateView state) {
    encoded_.clear();
    model_->EncodeCanonical(state, kind_->concrete_symmetry, encoded_);
    const int owner = OwnerOf(encoded_, comm_->size());
    if (owner == comm_->rank()) {
      Insert(encoded_);
      return encoded_.size();
    }
    std::vector<std::uint8_t>& box = successors_[static_cast<std::size_t>(owner)];
    ++sent_;
    const std::size_t before = box.size();
    PutVarint(encoded_.size(), box);
    box.insert(box.end(), encoded_.begin(), encoded_.end());
    return box.size() - before;
  }

  // Stores a canonical state this process owns; a new one's abstraction goes to its owner.
  void Insert(std::span<const std::uint8_t> bytes) {
    if (!model_->Decode(bytes, decoded_)) {
      Stop("a process received a state it cannot read");
      return;
    }
    if (!states_.FindOrInsert(StateView(decoded_)).is_new) return;
    abstract_(StateView(decoded_), std::span<Word>(image_));
    const int owner = owners_.Of(StateView(image_));
    if (owner == comm_->rank()) {
      Watch(StateView(image_));
    } else {
      QueueAbstract(StateView(image_), abstracts_[static_cast<std::size_t>(owner)]);
      ++sent_;
    }
  }

  // An abstract state of U, at the process that owns its orbit: in O, and into Sym(U).
  void Watch(StateView abstract) {
    if (!o_part_->Find(abstract)) outside_ = true;
    lower_.Add(abstract);
  }

  void Stop(std::string reason) {
    if (stopped_) return;
    stopped_ = true;
    stop_reason_ = std::move(reason);
  }

  Comm* comm_;
  Model* model_;
  const SandwichKind* kind_;
  std::function<void(StateView, std::span<Word>)> abstract_;
  const StateStore* o_part_;
  std::uint64_t o_size_;
  std::size_t batch_bytes_;
  LimitWatch* limits_;
  PackedStateStore states_;
  AbstractOwners owners_;
  SymmetricImage lower_;                               // this process's part of Sym(U)
  std::vector<std::vector<std::uint8_t>> successors_;  // per process: canonical states
  std::vector<std::vector<std::uint8_t>> abstracts_;   // per process: abstract states
  std::vector<Word> scratch_;
  std::vector<Word> image_;
  std::vector<Word> decoded_;
  std::vector<std::uint8_t> encoded_;
  std::uint32_t next_ = 0;       // the next stored state to expand
  std::uint32_t level_end_ = 0;  // where the level being expanded ends
  std::uint64_t calls_ = 0;
  std::uint64_t sent_ = 0;
  bool outside_ = false;
  bool stopped_ = false;
  std::string stop_reason_;
  ProgressTicker* ticker_ = nullptr;
};

}  // namespace druba::distributed
