// What the finite instances of a program showed, from each thread's view: where threads stood,
// alone and in pairs, the values variables took there, and each thread's own state (its location
// and the values of its live locals). Read by the candidates of instance_candidates.cc and
// state_candidates.cc; used by those two files only.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <vector>

#include "drb/liveness.h"
#include "drb/ordered.h"
#include "interp/model.h"
#include "invariants/value_seen.h"

namespace druba::predabs::instance_detail {

constexpr std::size_t kMaxOwnStates = 48;       // pairs of own states as candidates up to this many
constexpr std::size_t kMaxOwnRecorded = 1024;   // own states recorded, for ProjectOwnStates
constexpr std::size_t kMaxProjectedValues = 4;  // a local with more is left out of own states
constexpr std::size_t kMaxOwnPairs = 400;       // the second stage's own-state pairs, at most
constexpr std::size_t kMaxRelative = 96;        // own states relative to another thread, at most
constexpr std::uint64_t kMaxAtomValue = 8;      // `v[k] == c` atoms for c in 0 .. 7
constexpr std::size_t kMaxArrayCandidates = 8;  // a larger shared array's elements get none

// What the finite instances reached, from each thread's view. `by_live`: own states of the
// locals that may be read again (by any thread), up to kMaxOwnRecorded of them, with what the
// shared variables took in each (the own-state candidates of state_candidates.h, a second stage);
// else of every local, up to kMaxOwnStates.
struct Observations {
  explicit Observations(const Program& p, bool by_live = false)
      : index(drb::ThreadNamers(p)),
        live(drb::LiveLocals(p)),
        own_live(drb::LiveToAnyThread(p)),
        live_keys(by_live),
        pcs(p.statements.size() + 2),
        pairs(pcs * pcs, false),
        reached(pcs, false),
        shared(pcs * p.shared.size()),
        locals(pcs * p.locals.size()),
        orders(pcs * pcs * p.locals.size(), 0) {
    relative_off = std::find(index.locals.begin(), index.locals.end(), true) == index.locals.end();
  }
  drb::IdVariables index;                   // the variables that name threads (drb::ThreadNamers)
  std::vector<std::vector<bool>> live;      // [pc][local]: may be read again (drb/liveness.h)
  std::vector<std::vector<bool>> own_live;  // [pc][local]: by its thread or another
  bool live_keys;
  std::size_t pcs;
  std::vector<bool> pairs;    // [a * pcs + b]: threads i < j with pc[i] = a and pc[j] = b
  std::vector<bool> reached;  // [a]: some thread at a
  std::vector<Seen> shared;
  std::vector<Seen> locals;
  // A thread's own state (its location and the values of its variables) by number, and the pairs
  // of them that threads i < j were seen in.
  std::map<std::vector<Int>, std::uint32_t> own;
  std::set<std::pair<std::uint32_t, std::uint32_t>> own_pairs;
  // Per own state: what each shared variable took while a thread was in it.
  std::map<std::uint32_t, std::vector<Seen>> own_shared;
  std::vector<bool> dropped;  // [local]: left out of own states (ProjectOwnStates); empty: none
  // [(a * pcs + b) * locals + v]: how v of threads i < j at a and b compared (1: below, 2: equal,
  // 4: above).
  std::vector<std::uint8_t> orders;
  // Atoms over one thread (`pc[k] == a`: a; `v[k] == c`: pcs + v * kMaxAtomValue + c), and for
  // each own state the atoms some other thread satisfied whenever a thread was in it.
  std::map<std::uint32_t, std::set<std::uint64_t>> others;
  // A thread's own state relative to another thread: its location and, for each local that names
  // threads (drb::ThreadNamers), how it compares with the thread's own id and the other's (0:
  // below, 1: equal, 2: above; own * 3 + other), or kDead where the location never reads it again.
  // The pairs of them threads i < j were seen in, and which were seen as i's and as j's.
  std::map<std::vector<std::int64_t>, std::uint32_t> relative;
  std::set<std::pair<std::uint32_t, std::uint32_t>> relative_pairs;
  std::set<std::uint32_t> relative_lower, relative_upper;
  bool relative_off = false;  // no local names threads, or too many such own states

  static constexpr std::int64_t kDead = 9;
  void RelativeKey(const IntModel& m, StateView s, std::uint32_t who, std::uint32_t other,
                   std::vector<std::int64_t>& key) const {
    const Program& p = m.program();
    const auto order = [](const Int& v, std::uint32_t id) -> std::int64_t {
      return v < id ? 0 : v == id ? 1 : 2;
    };
    key.assign(1, static_cast<std::int64_t>(s[m.PcSlot(who)]));
    for (std::uint32_t v = 0; v < p.locals.size(); ++v) {
      if (!index.locals[v] || p.locals[v].name.find('[') != std::string::npos) continue;
      if (!live[key[0]][v]) {
        key.push_back(kDead);  // its value is never read again
        continue;
      }
      const Int value = m.values().Decode(s[m.LocalSlot(who, v)]);
      key.push_back(order(value, who) * 3 + order(value, other));
    }
  }

  void RecordRelative(const IntModel& m, StateView s) {
    std::vector<std::int64_t> a, b;
    const auto number = [&](const std::vector<std::int64_t>& key) {
      const auto next = static_cast<std::uint32_t>(relative.size());
      return relative.emplace(key, next).first->second;
    };
    for (std::uint32_t i = 0; i < m.num_threads() && !relative_off; ++i) {
      for (std::uint32_t j = i + 1; j < m.num_threads() && !relative_off; ++j) {
        RelativeKey(m, s, i, j, a);
        RelativeKey(m, s, j, i, b);
        const std::uint32_t ia = number(a);
        const std::uint32_t ib = number(b);
        relative_pairs.emplace(ia, ib);
        relative_lower.insert(ia);
        relative_upper.insert(ib);
        relative_off = relative.size() > kMaxRelative;
      }
    }
  }

  // Each thread's own state, the pairs of them, what the shared variables took in each
  // (live_keys), and the atoms the other threads satisfied.
  void RecordOwn(const IntModel& m, StateView s) {
    const Program& p = m.program();
    const ValueTable& values = m.values();
    std::vector<std::uint32_t> ids;
    std::vector<std::vector<std::uint64_t>> atoms;
    const std::size_t most = live_keys ? kMaxOwnRecorded : kMaxOwnStates;
    for (std::uint32_t i = 0; i < m.num_threads() && own.size() <= most; ++i) {
      std::vector<Int> key{Int(s[m.PcSlot(i)])};
      atoms.push_back({s[m.PcSlot(i)]});
      for (std::uint32_t v = 0; v < p.locals.size(); ++v) {
        // A value the thread never reads again is no part of its own state (NotIn states
        // nothing of it): 05_tas's `tmp`, left at 0 or 1 by a thread's last increment, had made
        // its mutual exclusion a candidate for each of the four values pairs, none inductive.
        if (live_keys && !own_live[key[0].convert_to<std::size_t>()][v]) {
          key.emplace_back(0);
          continue;
        }
        key.push_back(values.Decode(s[m.LocalSlot(i, v)]));
        if (key.back() >= 0 && key.back() < kMaxAtomValue) {
          atoms.back().push_back(pcs + v * kMaxAtomValue + static_cast<std::uint64_t>(key.back()));
        }
      }
      ids.push_back(
          own.emplace(std::move(key), static_cast<std::uint32_t>(own.size())).first->second);
      for (std::uint32_t j = 0; j < i; ++j) own_pairs.emplace(ids[j], ids[i]);
    }
    if (ids.size() == m.num_threads() && live_keys) {
      for (std::uint32_t i = 0; i < ids.size(); ++i) {
        std::vector<Seen>& row = own_shared[ids[i]];
        row.resize(p.shared.size());
        for (std::size_t v = 0; v < p.shared.size(); ++v) {
          row[v].Add(values.Decode(s[v]), i, m.num_threads());
        }
      }
    }
    if (ids.size() == m.num_threads()) {
      for (std::uint32_t i = 0; i < ids.size(); ++i) {
        std::set<std::uint64_t> seen;
        for (std::uint32_t k = 0; k < ids.size(); ++k) {
          if (k != i) seen.insert(atoms[k].begin(), atoms[k].end());
        }
        const auto [it, fresh] = others.emplace(ids[i], seen);
        if (fresh) continue;
        std::erase_if(it->second, [&](std::uint64_t a) { return !seen.contains(a); });
      }
    }
  }

  void Record(const IntModel& m, StateView s) {
    const Program& p = m.program();
    const ValueTable& values = m.values();
    if (!relative_off) RecordRelative(m, s);
    for (std::uint32_t i = 0; i < m.num_threads(); ++i) {
      for (std::uint32_t j = i + 1; j < m.num_threads(); ++j) {
        const std::size_t at = (s[m.PcSlot(i)] * pcs + s[m.PcSlot(j)]) * p.locals.size();
        for (std::uint32_t v = 0; v < p.locals.size(); ++v) {
          const Int a = values.Decode(s[m.LocalSlot(i, v)]);
          const Int b = values.Decode(s[m.LocalSlot(j, v)]);
          orders[at + v] |= static_cast<std::uint8_t>(a < b ? 1 : a == b ? 2 : 4);
        }
      }
    }
    RecordOwn(m, s);
    for (std::uint32_t i = 0; i < m.num_threads(); ++i) {
      const Word a = s[m.PcSlot(i)];
      reached[a] = true;
      for (std::uint32_t j = i + 1; j < m.num_threads(); ++j) {
        pairs[a * pcs + s[m.PcSlot(j)]] = true;
      }
      for (std::size_t v = 0; v < p.shared.size(); ++v) {
        shared[a * p.shared.size() + v].Add(values.Decode(s[v]), i, m.num_threads());
      }
      for (std::uint32_t v = 0; v < p.locals.size(); ++v) {
        locals[a * p.locals.size() + v].Add(values.Decode(s[m.LocalSlot(i, v)]), i,
                                            m.num_threads());
      }
    }
  }
};

}  // namespace druba::predabs::instance_detail
