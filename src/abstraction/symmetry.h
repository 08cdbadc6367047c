// The lower half of a sandwich proof (DESIGN.md section 8): Sym(U), the closure of the reached
// abstract set U = alpha(R(r,d)) under the permutations of interchangeable threads.
//
// Threads are interchangeable when they run the same code from the same initial local state
// (CPDS: identical PDA blocks and identical initial stacks). A permutation of such threads maps
// a run under free scheduling to a run (each step taken by the permuted thread), so R is closed
// under it; an abstraction whose state is a shared part followed by one component per thread, each
// a function of that thread's local state and the shared state only, commutes with it. So
// Sym(U) lies inside alpha(R) whenever U does.
//
// A state's canonical form sorts the components of each class (explore/canonical.h); two states
// are in one orbit iff their canonical forms agree, and the orbit of a canonical form c has prod
// over classes of m! / (k1! k2! ...) states (m threads in the class, k_i of them with equal
// components). |Sym(U)| is the sum of the orbit sizes of the distinct canonical forms of U.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <numeric>
#include <span>
#include <vector>

#include "explore/canonical.h"
#include "explore/state_store.h"

namespace druba {

class SymmetricImage {
 public:
  SymmetricImage(std::size_t width, ThreadSymmetry symmetry)
      : form_(std::move(symmetry)), canonical_(width), scratch_(width) {}

  const ThreadSymmetry& symmetry() const { return form_.symmetry(); }

  void Canonical(StateView state, std::span<Word> out) const { form_.Apply(state, out); }

  // Adds a state of U.
  void Add(StateView state) {
    Canonical(state, std::span<Word>(scratch_));
    if (!canonical_.FindOrInsert(StateView(scratch_)).is_new) return;
    size_ = SaturatingAdd(size_, OrbitSize(StateView(scratch_)));
  }

  // Whether `state` is in Sym(U).
  bool Contains(StateView state) {
    Canonical(state, std::span<Word>(scratch_));
    return canonical_.Find(StateView(scratch_)).has_value();
  }

  // |Sym(U)|, saturating at the largest uint64.
  std::uint64_t size() const { return size_; }
  std::size_t orbits() const { return canonical_.size(); }

  // The number of states in the orbit of a canonical state.
  std::uint64_t OrbitSize(StateView canonical) const {
    std::uint64_t size = 1;
    const std::size_t w = symmetry().component_width;
    for (const std::vector<std::uint32_t>& cls : symmetry().classes) {
      // Sorted components: equal ones are adjacent. Multinomial m! / (k1! k2! ...) as a product
      // of binomials C(j, k) over the runs, each built up exactly as C(j, i) = C(j, i-1)*(j-i+1)/i.
      std::uint64_t placed = 0;
      for (std::size_t i = 0; i < cls.size();) {
        std::size_t j = i + 1;
        while (j < cls.size() &&
               std::equal(canonical.data() + Offset(cls[i]), canonical.data() + Offset(cls[i]) + w,
                          canonical.data() + Offset(cls[j]))) {
          ++j;
        }
        const std::uint64_t run = j - i;
        placed += run;
        std::uint64_t binomial = 1;
        for (std::uint64_t k = 1; k <= run; ++k) {
          std::uint64_t product = 0;
          if (__builtin_mul_overflow(binomial, placed - run + k, &product)) return kMax;
          binomial = product / k;
        }
        size = SaturatingMul(size, binomial);
        i = j;
      }
    }
    return size;
  }

 private:
  static constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();
  static std::uint64_t SaturatingAdd(std::uint64_t a, std::uint64_t b) {
    return a > kMax - b ? kMax : a + b;
  }
  // Saturation only makes a count too large; a count is never trusted without the membership
  // check of SandwichProof, so it can only delay a proof, never make one.
  static std::uint64_t SaturatingMul(std::uint64_t a, std::uint64_t b) {
    std::uint64_t out = 0;
    return __builtin_mul_overflow(a, b, &out) ? kMax : out;
  }
  std::size_t Offset(std::uint32_t thread) const { return form_.Offset(thread); }

  CanonicalForm form_;
  StateStore canonical_;
  std::vector<Word> scratch_;
  std::uint64_t size_ = 0;
};

}  // namespace druba
