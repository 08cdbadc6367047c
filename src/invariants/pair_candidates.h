// Candidate invariants about what two threads share (per-pair arrays) and about how a thread's
// integers compare with the shared ones, read off the finite instances with the others
// (instance_candidates.h, step 2 of the invariants from finite instances, docs/drb.md): the
// values a thread's row and column of a per-pair array keep where it stands (and where the other
// thread stands), which entries of its row a scan's index has passed, how two threads' numbers
// compare while one holds the other's entry (Ricart and Agrawala's "a reply goes to the older
// request": `!ok[self][j] || ts[self] < ts[j]`), and how a thread's number compares with a
// shared counter (`ts[self] <= clock`).
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "explore/state_store.h"
#include "interp/model.h"
#include "interp/program.h"
#include "invariants/instance_candidates.h"

namespace druba::predabs {

class RelationReader {
 public:
  explicit RelationReader(const Program& program);
  // What state `s` of `model` shows.
  void Record(const IntModel& model, StateView s);
  // The candidates nothing recorded contradicts, in `.drb` text; `live`: none about a number
  // where no thread reads it again (drb::LiveToAnyThread; the second stage's).
  void Candidates(const Places& places, std::vector<std::string>& out, bool live = false) const;

  // The values an entry took (at most 4 listed; `many` past that, or past int64).
  struct Values {
    std::set<std::int64_t> seen;
    bool many = false;
    void Add(const Int& v);
  };

 private:
  void RecordPair(const IntModel& m, StateView s, std::uint32_t i, std::uint32_t j);
  void PairCandidates(const Places& places, std::vector<std::string>& out) const;
  void ScanCandidates(const Places& places, std::vector<std::string>& out) const;
  void OrderCandidates(const Places& places, std::vector<std::string>& out) const;
  void SharedCandidates(const Places& places, std::vector<std::string>& out, bool live) const;

  // Indices into the tables below.
  std::size_t Side(std::size_t v, bool row, std::size_t a) const {
    return (v * 2 + row) * pcs_ + a;
  }
  std::size_t Both(std::size_t v, bool row, std::size_t a, std::size_t b) const {
    return Side(v, row, a) * pcs_ + b;
  }
  std::size_t Scan(std::size_t v, std::size_t a, std::size_t k, int rel) const {
    return ((v * pcs_ + a) * scans_.size() + k) * 3 + static_cast<std::size_t>(rel);
  }
  std::size_t OrderAt(std::size_t a, std::size_t b, std::size_t w, std::size_t v, bool row,
                      bool entry) const {
    return (((a * pcs_ + b) * numbers_.size() + w) * program_.pairs.size() + v) * 4 +
           (row ? 2U : 0U) + (entry ? 1U : 0U);
  }
  std::size_t Against(std::size_t a, std::size_t w, std::size_t x) const {
    return (a * numbers_.size() + w) * counters_.size() + x;  // a == pcs_: any location
  }

  const Program& program_;
  std::size_t pcs_;
  std::vector<std::vector<bool>> live_;      // [pc][local] (drb/liveness.h)
  std::vector<std::vector<bool>> any_live_;  // [pc][local]: drb::LiveToAnyThread
  std::vector<std::uint32_t> scans_;         // locals that index threads (drb::ThreadNamers)
  std::vector<std::uint32_t> numbers_;       // integer locals that hold no id
  std::vector<std::uint32_t> counters_;      // integer shared variables that hold no id
  // Over the other threads j: thread self's row entry v[self][j] (row) or column entry
  // v[j][self], where self stands (by_self_) and where both do (by_both_).
  std::vector<Values> by_self_;
  std::vector<Values> by_both_;
  // v[self][j] where self stands, by how j compares with a scan local of self's (below, at,
  // above it), over every j.
  std::vector<Values> by_scan_;
  // For threads self < j at two locations: how a number of theirs compared (1 below, 2 equal,
  // 4 above) where a Boolean entry (v[self][j] when row, else v[j][self]) was true or false.
  std::vector<std::uint8_t> orders_;
  // How a thread's number compared with a shared counter, where it stood and anywhere.
  std::vector<std::uint8_t> against_;
};

}  // namespace druba::predabs
