// Weighted counting candidates read off the finite instances (instance_candidates.h): a shared
// counter equal to a constant plus a weighted count of threads by location,
//
//     count_ == count(j: pc[j] == inc) - count(j: pc[j] == dec)
//     c == count(j: pc[j] == added_once) + 2 * count(j: pc[j] == added_twice)
//
// which a lock-protected counter that each thread moves and moves back, or adds a fixed amount
// to, keeps. The weights are the solution of the linear system that the explored states make
// (one equation per state: the counter's value against the number of threads at each
// location), when it has one in integers; Houdini then decides whether it is inductive.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <absl/container/flat_hash_set.h>

#include "interp/model.h"
#include "interp/program.h"
#include "invariants/instance_candidates.h"

namespace druba::predabs {

// Rows of the system kept at most (the first distinct ones: a basis of their span is what the
// solution needs), and locations it weighs at most.
inline constexpr std::size_t kMaxWeightRows = 4096;
inline constexpr std::size_t kMaxWeightLocations = 256;

class WeightReader {
 public:
  explicit WeightReader(const Program& program);
  void Record(const IntModel& model, StateView s);
  void Candidates(const Places& places, std::vector<std::string>& out) const;

 private:
  using Row = std::vector<std::int64_t>;  // threads per location, 1, then each counter's value
  // Reduces `row` (mod a prime) against the basis; true when it is independent of it, which it
  // then joins.
  bool Independent(const Row& row);

  const Program& program_;
  std::vector<std::uint32_t> locations_;             // the template's named locations, by column
  std::vector<std::int32_t> column_;                 // [pc]: its column, or -1
  std::vector<std::uint32_t> counters_;              // shared integers that hold no ids
  std::vector<Row> basis_rows_;                      // the rows that joined the basis, as integers
  std::vector<std::vector<std::uint64_t>> reduced_;  // them reduced (mod p), pivot first
  std::vector<std::size_t> pivots_;
  absl::flat_hash_set<Row> rows_;   // the distinct rows seen, up to kMaxWeightRows
  std::vector<std::int64_t> most_;  // [column]: the most threads seen at the location at once
  bool off_ = false;                // too many locations, a value beyond int64, or no counter
};

}  // namespace druba::predabs
