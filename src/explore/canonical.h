// Thread symmetry of states, and their canonical form.
//
// A state (concrete, or abstract) is a shared part followed by one component per thread, all of
// one width. Threads in one class are interchangeable: they run the same code from the same
// initial local state (a CPDS's identical PDA blocks and initial stacks; a symmetric `.drb`
// program's one template), so a permutation of a class maps a run to a run, each step taken by
// the permuted thread. The canonical form of a state sorts the components of each class
// (lexicographically, word by word); two states lie in one orbit of the symmetry exactly when
// their canonical forms agree. Any sort order would do: what matters is that the form is a
// function of the orbit and lies in it.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "explore/state_store.h"

namespace druba {

struct ThreadSymmetry {
  std::size_t first_component = 0;  // words before thread 0's component
  std::size_t component_width = 0;
  // Classes of at least two interchangeable threads, each sorted; other threads are fixed.
  std::vector<std::vector<std::uint32_t>> classes;
};

class CanonicalForm {
 public:
  explicit CanonicalForm(ThreadSymmetry symmetry) : symmetry_(std::move(symmetry)) {}

  const ThreadSymmetry& symmetry() const { return symmetry_; }

  // `out` (the state's width) gets the canonical form of `state`; it must not overlap it.
  void Apply(StateView state, std::span<Word> out) const {
    std::copy(state.begin(), state.end(), out.begin());
    const std::size_t w = symmetry_.component_width;
    const auto at = [&](std::uint32_t t) { return state.data() + Offset(t); };
    for (const std::vector<std::uint32_t>& cls : symmetry_.classes) {
      order_ = cls;
      std::sort(order_.begin(), order_.end(), [&](std::uint32_t a, std::uint32_t b) {
        return std::lexicographical_compare(at(a), at(a) + w, at(b), at(b) + w);
      });
      for (std::size_t i = 0; i < cls.size(); ++i) {
        std::copy(at(order_[i]), at(order_[i]) + w, out.data() + Offset(cls[i]));
      }
    }
  }

  // Where thread t's component starts.
  std::size_t Offset(std::uint32_t thread) const {
    return symmetry_.first_component + std::size_t{thread} * symmetry_.component_width;
  }

 private:
  ThreadSymmetry symmetry_;
  mutable std::vector<std::uint32_t> order_;
};

}  // namespace druba
