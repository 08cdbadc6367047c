// Candidates of the second stage of the invariants from finite instances
// (CandidateReader::OwnStateCandidates, docs/drb.md): how a thread's number compares with a
// shared counter or with another number of its own at a location while a flag (a variable of the
// values 0 and 1 alone, shared or the thread's) has one value, where that says more than the
// location alone: `pc[self] != check || dec_flag != 0 || value > v[self]` (SV-COMP's 03_incdec:
// the counter stays above what a thread read while no thread has decremented it); and which values
// a shared counter keeps while a shared flag has one value (`inc_flag != 0 || value == 0`: no
// thread has incremented it yet); and which values two shared flags never take together
// (`__role_main_ || !started_thr1`: a C program's threads start after its main has); and how two
// shared counters compare at a location, while a shared flag has one value, or anywhere
// (`mutex != 0 || a != b`: values that a critical section rotates, SV-COMP's 31_simple_loop5_vs).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "explore/state_store.h"
#include "interp/model.h"
#include "interp/program.h"
#include "invariants/instance_candidates.h"
#include "invariants/instance_observations.h"

namespace druba::predabs {

class FlagOrderReader {
 public:
  // `seen`: observations with the liveness of own states (Observations::own_live).
  FlagOrderReader(const Program& program, const instance_detail::Observations& seen);
  // What state `s` of `model` shows.
  void Record(const IntModel& model, StateView s);
  // The candidates nothing recorded contradicts, in `.drb` text.
  void Candidates(const Places& places, std::vector<std::string>& out) const;

 private:
  struct Term {
    bool shared;
    std::uint32_t v;
  };
  std::string Text(const Term& t) const;
  void RecordSharedOrders(const IntModel& m, StateView s);
  void SharedOrderCandidates(const Places& places, std::vector<std::string>& out) const;
  // False exactly where `flag` is c: `f != 1`, `!b`.
  std::string Condition(const Term& flag, std::size_t c) const;
  // [((a * numbers + x) * terms + y) * (flags * 2 + 1) + slot]: how number x compared with term
  // y at location a (1 below, 2 equal, 4 above) where flag f was c (slot f * 2 + c) and at all
  // (the last slot).
  std::size_t At(std::size_t a, std::size_t x, std::size_t y, std::size_t slot) const {
    return ((a * numbers_.size() + x) * terms_.size() + y) * (flags_.size() * 2 + 1) + slot;
  }

  const Program& program_;
  std::size_t pcs_;
  std::vector<std::vector<bool>> live_;  // [pc][local]: read again by its thread or another
  std::vector<Term> numbers_;            // the thread's integer locals that hold no id
  std::vector<Term> terms_;              // shared integers that hold no id, then numbers_
  std::vector<Term> flags_;
  std::vector<std::uint8_t> orders_;  // empty where the table would be too large
  // The least and largest value of shared term y over every state (bounds_[y]) and where shared
  // flag f was c (bounds_[(1 + f * 2 + c) * shared terms + y]).
  struct Bounds {
    std::optional<Int> lo, hi;
    void Add(const Int& v) {
      if (!lo || v < *lo) lo = v;
      if (!hi || v > *hi) hi = v;
    }
  };
  std::vector<Bounds> bounds_;
  std::size_t shared_terms_ = 0;
  // The shared flags (indices into flags_), and which values each two of them took together:
  // [(f * shared + g) * 4 + value of f * 2 + value of g].
  std::vector<std::size_t> shared_flags_;
  std::vector<bool> together_;
  // How shared terms x < y compared (Order's bits): [(slot * shared terms + x) * shared terms +
  // y], where slot is a thread's location a (a < pcs_), any state (pcs_), or shared flag f at c
  // (pcs_ + 1 + f * 2 + c). Empty where it would be too large.
  std::size_t PairAt(std::size_t slot, std::size_t x, std::size_t y) const {
    return (slot * shared_terms_ + x) * shared_terms_ + y;
  }
  std::vector<std::uint8_t> shared_orders_;
  // Record's scratch, kept between states: the shared flags' values (FlagValue), the shared
  // terms' values and the slots of shared_orders_ a state marks.
  std::vector<int> shared_value_;
  std::vector<Int> shared_term_;
  std::vector<std::size_t> slots_;
};

}  // namespace druba::predabs
