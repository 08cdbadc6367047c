// The lower bound of the sandwich proof (DESIGN.md section 8) by a search of its own: breadth first
// under free scheduling (every thread may move in every state) over canonical representatives,
// one concrete state per orbit of the thread symmetry (explore/canonical.h: the components of each
// class of interchangeable threads sorted).
//
// Why it is sound. The lower bound only needs reachable states. The initial state is reachable;
// a successor under free scheduling of a reachable state is reachable (Round-Robin with rounds
// and delays only chooses among these interleavings); and a permutation of interchangeable threads
// maps a run to a run (each step taken by the permuted thread: same rules, same initial stack), so
// the canonical form of a reachable state is reachable. So every state this search stores is
// reachable, its abstraction lies in alpha(R), and the symmetric closure of what it reaches lies
// in Sym(alpha(R)) = alpha(R).
//
// Why stopping early is sound. With O an upper bound of alpha(R) (closed under every action,
// holding alpha of the initial states), Sym(U) subset of alpha(R) subset of O: once Sym(U) covers
// O, alpha(R) = O, whatever part of R was explored. The search stops there; it is advanced in
// slices (a successor-call budget) so that a program whose symmetric closure never covers O (O
// strictly larger than alpha(R)) costs only a share of the Round-Robin search beside it.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "common/resources.h"
#include "explore/canonical.h"
#include "explore/model.h"
#include "explore/state_store.h"

namespace druba {

template <ExplorableModel Model, class Abs>
class SymmetricLowerBound {
 public:
  enum class Status : std::uint8_t { kRunning, kExhausted, kStopped };

  // `symmetry` describes the concrete states (`model.state_width()` words); each abstract state
  // reached goes to `reached` (Sym(U), SymmetricImage over the abstraction's width).
  SymmetricLowerBound(Model& model, const Abs& abs, ThreadSymmetry symmetry)
      : model_(model),
        abs_(abs),
        canonical_(std::move(symmetry)),
        seen_(model.state_width()),
        scratch_(model.state_width()),
        form_(model.state_width()),
        abstract_(abs.width()) {}

  // Expands states until `budget` successor calls were made, `done()` says the bound answered,
  // every canonical state was expanded (kExhausted: Sym(U) is then Sym(alpha(R)) itself), or a
  // limit stopped it. `add(abstract)` receives the abstraction of each new canonical state.
  template <class Add, class Done>
  Status Advance(std::uint64_t budget, LimitWatch* limits, Add&& add, Done&& done) {
    if (!started_) {
      started_ = true;
      model_.ForEachInitial([&](StateView s) { Store(s, add); });
    }
    const std::uint64_t stop_at = calls_ + budget;
    while (next_ < seen_.size()) {
      if (done()) return Status::kRunning;
      if (calls_ >= stop_at) return Status::kRunning;
      if (limits != nullptr && limits->Poll([&] { return seen_.NextGrowthBytes(); })) {
        return Status::kStopped;
      }
      const StateView s = seen_.Get(next_++);
      scratch_.assign(s.begin(), s.end());
      for (std::uint32_t t = 0; t < model_.num_threads(); ++t) {
        ++calls_;
        model_.ForEachSuccessor(StateView(scratch_), t,
                                [&](std::uint32_t, StateView succ) { Store(succ, add); });
      }
    }
    return Status::kExhausted;
  }

  std::uint64_t states() const { return seen_.size(); }
  std::uint64_t successor_calls() const { return calls_; }
  std::size_t MemoryBytes() const { return seen_.MemoryBytes(); }

 private:
  template <class Add>
  void Store(StateView s, Add& add) {
    canonical_.Apply(s, std::span<Word>(form_));
    if (!seen_.FindOrInsert(StateView(form_)).is_new) return;
    abs_.Abstract(StateView(form_), std::span<Word>(abstract_));
    add(StateView(abstract_));
  }

  Model& model_;
  const Abs& abs_;
  CanonicalForm canonical_;
  StateStore seen_;
  std::vector<Word> scratch_;
  std::vector<Word> form_;
  std::vector<Word> abstract_;
  std::uint32_t next_ = 0;
  std::uint64_t calls_ = 0;
  bool started_ = false;
};

}  // namespace druba
