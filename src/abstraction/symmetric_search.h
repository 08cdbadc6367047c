// The lower bound of the sandwich proof (DESIGN.md section 8) by a search of its own: breadth first
// under free scheduling (every thread may move in every state) over canonical representatives,
// one concrete state per orbit of the thread symmetry (explore/canonical.h: the components of each
// class of interchangeable threads sorted): explore/free_search.h's search reduced by the
// symmetry, whose listener gives the abstraction of each new form to Sym(U).
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
#include <functional>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "common/resources.h"
#include "explore/canonical.h"
#include "explore/free_search.h"
#include "explore/model.h"

namespace druba {

template <ExplorableModel Model, class Abs>
class SymmetricLowerBound {
 public:
  enum class Status : std::uint8_t { kRunning, kExhausted, kStopped };

  // `symmetry` describes the concrete states (`model.state_width()` words).
  SymmetricLowerBound(Model& model, const Abs& abs, ThreadSymmetry symmetry, LimitWatch* limits)
      : feed_{abs, std::vector<Word>(abs.width()), {}, {}}, search_(model, feed_, limits) {
    search_.ReduceBy(std::move(symmetry), OrbitViews::kFormOnly);
  }

  // Expands states until `budget` successor calls were made, `done()` says the bound answered,
  // every canonical state was expanded (kExhausted: Sym(U) is then Sym(alpha(R)) itself), or a
  // limit stopped it. `add(abstract)` receives the abstraction of each new canonical state.
  template <class Add, class Done>
  Status Advance(std::uint64_t budget, Add&& add, Done&& done) {
    if (done()) return Status::kRunning;
    feed_.add = std::forward<Add>(add);
    feed_.done = std::forward<Done>(done);
    const auto status = search_.Advance(budget, [](StateView /*state*/) { return std::string(); });
    if (status == Search::Status::kDone) return Status::kExhausted;
    // The listener stops the search once the bound answered: for the sandwich proof, as running.
    if (status == Search::Status::kRunning || done()) return Status::kRunning;
    return Status::kStopped;
  }

  std::uint64_t states() const { return search_.num_states(); }
  std::uint64_t successor_calls() const { return search_.image_calls(); }
  std::size_t MemoryBytes() const { return search_.MemoryBytes(); }

 private:
  // The listener: the abstraction of each new form to `add`, until `done()`.
  struct Feed {
    const Abs& abs;
    std::vector<Word> abstract;
    std::function<void(StateView)> add;
    std::function<bool()> done;
    bool OnNewState(std::uint32_t /*record*/, StateView state) {
      abs.Abstract(state, std::span<Word>(abstract));
      add(StateView(abstract));
      return !done();
    }
  };
  using Search = FreeSearch<Model, Feed>;

  Feed feed_;
  Search search_;
};

}  // namespace druba
