#include "invariants/instance_candidates.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <utility>

#include <fmt/format.h>

#include "drb/liveness.h"
#include "drb/ordered.h"
#include "explore/state_store.h"
#include "interp/model.h"
#include "invariants/code_candidates.h"
#include "invariants/pair_candidates.h"
#include "invariants/rank_candidates.h"
#include "invariants/value_seen.h"
#include "invariants/weight_candidates.h"

namespace druba::predabs {
namespace instance_detail {

constexpr std::size_t kMaxOwnStates = 48;       // pairs of own states as candidates up to this many
constexpr std::size_t kMaxRelative = 96;        // own states relative to another thread, at most
constexpr std::uint64_t kMaxAtomValue = 8;      // `v[k] == c` atoms for c in 0 .. 7
constexpr std::size_t kMaxArrayCandidates = 8;  // a larger shared array's elements get none

}  // namespace instance_detail

// What the finite instances reached, from each thread's view.
struct CandidateReader::Observations {
  using Seen = instance_detail::Seen;
  static constexpr std::size_t kMaxOwnStates = instance_detail::kMaxOwnStates;
  static constexpr std::uint64_t kMaxAtomValue = instance_detail::kMaxAtomValue;
  explicit Observations(const Program& p)
      : index(drb::ThreadNamers(p)),
        live(drb::LiveLocals(p)),
        pcs(p.statements.size() + 2),
        pairs(pcs * pcs, false),
        reached(pcs, false),
        shared(pcs * p.shared.size()),
        locals(pcs * p.locals.size()),
        orders(pcs * pcs * p.locals.size(), 0) {
    relative_off = std::find(index.locals.begin(), index.locals.end(), true) == index.locals.end();
  }
  drb::IdVariables index;               // the variables that name threads (drb::ThreadNamers)
  std::vector<std::vector<bool>> live;  // [pc][local]: may be read again (drb/liveness.h)
  std::size_t pcs;
  std::vector<bool> pairs;    // [a * pcs + b]: threads i < j with pc[i] = a and pc[j] = b
  std::vector<bool> reached;  // [a]: some thread at a
  std::vector<Seen> shared;
  std::vector<Seen> locals;
  // A thread's own state (its location and the values of its variables) by number, and the pairs
  // of them that threads i < j were seen in.
  std::map<std::vector<Int>, std::uint32_t> own;
  std::set<std::pair<std::uint32_t, std::uint32_t>> own_pairs;
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
        relative_off = relative.size() > instance_detail::kMaxRelative;
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
    std::vector<std::uint32_t> ids;
    std::vector<std::vector<std::uint64_t>> atoms;
    for (std::uint32_t i = 0; i < m.num_threads() && own.size() <= kMaxOwnStates; ++i) {
      std::vector<Int> key{Int(s[m.PcSlot(i)])};
      atoms.push_back({s[m.PcSlot(i)]});
      for (std::uint32_t v = 0; v < p.locals.size(); ++v) {
        key.push_back(values.Decode(s[m.LocalSlot(i, v)]));
        if (key.back() >= 0 && key.back() < kMaxAtomValue) {
          atoms.back().push_back(pcs + v * kMaxAtomValue + static_cast<std::uint64_t>(key.back()));
        }
      }
      ids.push_back(
          own.emplace(std::move(key), static_cast<std::uint32_t>(own.size())).first->second);
      for (std::uint32_t j = 0; j < i; ++j) own_pairs.emplace(ids[j], ids[i]);
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

// A location by its label, or none when it has no name a predicate can use.
std::optional<std::string> LabelOf(const Program& p, std::uint32_t pc) {
  if (pc == p.error_pc) return std::nullopt;
  const std::string name = p.PcName(pc);
  if (name.empty() || name.front() == '@') return std::nullopt;
  return name;
}

Places PlacesOf(const Program& p) {
  Places out;
  const ThreadTemplate& tt = p.templates[0];
  for (std::uint32_t pc = tt.first; pc <= tt.first + tt.size; ++pc) {
    const std::uint32_t at = pc == tt.first + tt.size ? tt.end_pc : pc;
    if (const std::optional<std::string> label = LabelOf(p, at)) {
      out.named.push_back(at);
      out.labels.push_back(*label);
      out.none_named += "pc[self] == " + *label + " || ";
    } else {
      out.unnamed.push_back(at);
    }
  }
  std::set<std::string> taken(out.labels.begin(), out.labels.end());
  for (const Variable& v : p.shared) taken.insert(v.name.substr(0, v.name.find('[')));
  for (const Variable& v : p.locals) taken.insert(v.name.substr(0, v.name.find('[')));
  const auto unused = [&](const std::string& stem) {
    std::string name = stem;
    for (int i = 1; taken.contains(name); ++i) name = stem + std::to_string(i);
    taken.insert(name);
    return name;
  };
  out.j = unused("j");
  out.k = unused("k");
  out.m = unused("m");
  return out;
}

namespace {

using Observations = CandidateReader::Observations;
using instance_detail::kMaxArrayCandidates;
using instance_detail::kMaxAtomValue;
using instance_detail::kMaxOwnStates;
using instance_detail::kMaxValues;
using instance_detail::Seen;

// The candidates that `seen` keeps about variable `name` where `head` (`pc[self] != a || `) is
// false.
void VariableCandidates(const std::string& head, const std::string& name, const Variable& var,
                        bool id, const Seen& seen, const std::string& count,
                        std::vector<std::string>& out) {
  if (!seen.lo && !seen.unbounded) return;  // no thread there
  if (var.type == Type::kBool) {
    if (seen.values.size() == 1)
      out.push_back(head + (*seen.values.begin() != 0 ? "" : "!") + name);
    return;
  }
  // An id's values at a few counts say nothing of larger ones, unless none names a thread.
  const bool grows = seen.Grows();
  if (!seen.many && !grows && (!id || (seen.hi && *seen.hi < 0))) {
    std::string any;
    for (const std::int64_t v : seen.values) {
      any += fmt::format("{}{} == {}", any.empty() ? "" : " || ", name, v);
    }
    out.push_back(head + any);
  }
  if ((seen.many || grows) && !seen.unbounded) {  // bounds, where the values are not listed
    out.push_back(fmt::format("{}{} >= {}", head, name, *seen.lo));
    if (!id && !grows) out.push_back(fmt::format("{}{} <= {}", head, name, *seen.hi));
  }
  if (id && !seen.many && !grows && !seen.unbounded &&
      seen.lo) {  // with many values, bounded above
    out.push_back(fmt::format("{}{} >= {}", head, name, *seen.lo));
  }
  if (!id && !seen.id_like) return;  // the order against the viewer's id matters for ids
  if (seen.below_count) out.push_back(head + name + " < " + count);
  if (seen.from_count) out.push_back(head + name + " >= " + count);
  if (seen.below_last) out.push_back(head + name + " < " + count + " - 1");
  if (seen.from_last && !seen.from_count) out.push_back(head + name + " >= " + count + " - 1");
  if (!seen.above && !seen.equal) out.push_back(head + name + " < self");
  if (!seen.below && !seen.equal) out.push_back(head + name + " > self");
  if (!seen.above) out.push_back(head + name + " <= self");
  if (!seen.below) out.push_back(head + name + " >= self");
  if (!seen.equal) out.push_back(head + name + " != self");
}

// `pc[self] != a || v[self] != 1 || ...`: thread `who` is not in own state `key`.
std::optional<std::string> NotIn(const Program& p, const Places& places,
                                 const std::vector<Int>& key, const std::string& who) {
  const auto at = std::find(places.named.begin(), places.named.end(), key[0]);
  if (at == places.named.end()) return std::nullopt;
  std::string out = fmt::format("pc[{}] != {}", who, places.labels[at - places.named.begin()]);
  for (std::size_t v = 0; v < p.locals.size(); ++v) {
    if (p.locals[v].name.find('[') != std::string::npos) continue;
    out += p.locals[v].type == Type::kBool
               ? fmt::format(" || {}{}[{}]", key[v + 1] != 0 ? "!" : "", p.locals[v].name, who)
               : fmt::format(" || {}[{}] != {}", p.locals[v].name, who, key[v + 1].str());
  }
  return out;
}

// Pairs of own states that threads i < j were never seen in, where their locations were.
void OwnPairs(const Program& p, const Observations& o, const Places& places,
              std::vector<std::string>& out) {
  if (o.own.size() > kMaxOwnStates) return;
  for (const auto& [a, ia] : o.own) {
    const std::optional<std::string> lower = NotIn(p, places, a, "self");
    if (!lower) continue;
    for (const auto& [b, ib] : o.own) {
      if (o.own_pairs.contains({ia, ib})) continue;
      if (!o.pairs[static_cast<std::size_t>(a[0]) * o.pcs + static_cast<std::size_t>(b[0])]) {
        continue;  // the locations alone say it
      }
      if (const std::optional<std::string> upper = NotIn(p, places, b, places.j)) {
        out.push_back(
            fmt::format("forall {0}: {0} <= self || {1} || {2}", places.j, *lower, *upper));
      }
    }
  }
}

// Thread `who` is not in relative own state `key` (Observations::relative) against thread `other`.
std::optional<std::string> NotInRelative(const Program& p, const Observations& o,
                                         const Places& places, const std::vector<std::int64_t>& key,
                                         const std::string& who, const std::string& other) {
  static const char* const kNot[3] = {">=", "!=", "<="};
  const auto at = std::find(places.named.begin(), places.named.end(), key[0]);
  if (at == places.named.end()) return std::nullopt;
  std::string out = fmt::format("pc[{}] != {}", who, places.labels[at - places.named.begin()]);
  std::size_t k = 1;
  for (std::size_t v = 0; v < p.locals.size(); ++v) {
    const Variable& var = p.locals[v];
    if (!o.index.locals[v] || var.name.find('[') != std::string::npos) continue;
    const std::int64_t c = key[k++];
    if (c == Observations::kDead) continue;
    out += fmt::format(" || {0}[{1}] {2} {1} || {0}[{1}] {3} {4}", var.name, who, kNot[c / 3],
                       kNot[c % 3], other);
  }
  return out;
}

// Pairs of relative own states that threads i < j were never seen in together, where their
// locations were: `forall j: j <= self || pc[self] != a || k[self] >= j || ... || pc[j] != b ...`
// (thread self past j in its scan while j is past self in its own, say).
void RelativePairs(const Program& p, const Observations& o, const Places& places,
                   std::vector<std::string>& out) {
  if (o.relative_off) return;
  for (const auto& [a, ia] : o.relative) {
    if (!o.relative_lower.contains(ia)) continue;
    const std::optional<std::string> lower = NotInRelative(p, o, places, a, "self", places.j);
    if (!lower) continue;
    for (const auto& [b, ib] : o.relative) {
      if (!o.relative_upper.contains(ib) || o.relative_pairs.contains({ia, ib}) ||
          !o.pairs[static_cast<std::size_t>(a[0]) * o.pcs + static_cast<std::size_t>(b[0])]) {
        continue;
      }
      if (const std::optional<std::string> upper =
              NotInRelative(p, o, places, b, places.j, "self")) {
        out.push_back(
            fmt::format("forall {0}: {0} <= self || {1} || {2}", places.j, *lower, *upper));
      }
    }
  }
}

// `(forall k: <k not in own state a>) || exists m: <atom of m>`: whenever a thread is in own
// state a, some thread (another: a thread in a does not satisfy the atom) satisfies the atom. It
// names no `self`, so that the solver meets it as an existential fact of the state.
void Existence(const Program& p, const Observations& o, const Places& places,
               std::vector<std::string>& out) {
  if (o.own.size() > kMaxOwnStates) return;
  for (const auto& [a, ia] : o.own) {
    const std::optional<std::string> not_in = NotIn(p, places, a, places.k);
    const auto found = o.others.find(ia);
    if (!not_in || found == o.others.end()) continue;
    for (const std::uint64_t atom : found->second) {
      std::string text;
      if (atom < o.pcs) {
        const auto at = std::find(places.named.begin(), places.named.end(), atom);
        if (at == places.named.end() || a[0] == atom) continue;
        text = fmt::format("pc[{}] == {}", places.m, places.labels[at - places.named.begin()]);
      } else {
        const std::uint64_t v = (atom - o.pcs) / kMaxAtomValue;
        const Variable& var = p.locals[v];
        const std::uint64_t c = (atom - o.pcs) % kMaxAtomValue;
        if (var.name.find('[') != std::string::npos || a[v + 1] == c) continue;
        text = var.type == Type::kBool
                   ? fmt::format("{}{}[{}]", c != 0 ? "" : "!", var.name, places.m)
                   : fmt::format("{}[{}] == {}", var.name, places.m, c);
      }
      out.push_back(
          fmt::format("(forall {}: {}) || exists {}: {}", places.k, *not_in, places.m, text));
    }
  }
}

// `forall j: j <= self || pc[self] != a || pc[j] != b || v[self] < v[j]`: how a per-thread
// variable with many values (a ticket) of threads i < j at locations a and b compares, where
// the own states are too many to be listed in pairs.
void PairOrders(const Program& p, const Observations& o, const Places& places,
                std::vector<std::string>& out) {
  const std::size_t locals = p.locals.size();
  for (std::size_t x = 0; x < places.named.size(); ++x) {
    for (std::size_t y = 0; y < places.named.size(); ++y) {
      const std::size_t a = places.named[x];
      const std::size_t b = places.named[y];
      for (std::size_t v = 0; v < locals; ++v) {
        const Variable& var = p.locals[v];
        const std::uint8_t seen = o.orders[(a * o.pcs + b) * locals + v];
        if (var.type == Type::kBool || var.name.find('[') != std::string::npos || seen == 0 ||
            seen == 7 ||
            (!o.locals[a * locals + v].many && !o.locals[b * locals + v].many &&
             o.own.size() <= kMaxOwnStates)) {
          continue;
        }
        out.push_back(
            fmt::format("forall {0}: {0} <= self || pc[self] != {1} || pc[{0}] != {2} "
                        "|| {3}[self] {4} {3}[{0}]",
                        places.j, places.labels[x], places.labels[y], var.name, kOrderOps[seen]));
      }
    }
  }
}

// The observations with, at each location no instance reached but the code leads to, what its
// predecessors showed: the values of the variables their statements do not write, and where
// other threads stood (a step moves one thread). Such a location gets the candidates of a reached
// one beside "no thread is there", which the first step there that the instances missed drops
// (a counter's wrap-around, say), while what held on the way in may well hold there too.
Observations FromPredecessors(const Program& p, const Observations& o, std::vector<bool>& derived) {
  const CodeFlow flow = CodeFlowOf(p);
  Observations ext = o;
  derived.assign(o.pcs, false);
  const std::size_t ns = p.shared.size();
  const std::size_t nl = p.locals.size();
  for (bool changed = true; changed;) {
    changed = false;
    for (std::size_t a = 0; a < o.pcs; ++a) {
      if (o.reached[a]) continue;
      bool any = false;
      std::vector<Seen> shared(ns), locals(nl);
      for (const std::uint32_t q : flow.predecessors[a]) {
        if (!ext.reached[q]) continue;
        any = true;
        for (std::size_t v = 0; v < ns; ++v) {
          const VariableKey key{VariableKey::Kind::kShared, static_cast<std::uint32_t>(v)};
          if (!flow.Writes(q, key)) shared[v].Merge(ext.shared[q * ns + v]);
        }
        for (std::size_t v = 0; v < nl; ++v) {
          const VariableKey key{VariableKey::Kind::kLocal, static_cast<std::uint32_t>(v)};
          if (!flow.Writes(q, key)) locals[v].Merge(ext.locals[q * nl + v]);
        }
        for (std::size_t b = 0; b < o.pcs; ++b) {
          for (const bool lower : {true, false}) {
            const std::size_t from = lower ? q * o.pcs + b : b * o.pcs + q;
            const std::size_t to = lower ? a * o.pcs + b : b * o.pcs + a;
            if (ext.pairs[from] && !ext.pairs[to]) {
              ext.pairs[to] = true;
              changed = true;
            }
          }
        }
      }
      if (!any) continue;
      changed = changed || !ext.reached[a];
      ext.reached[a] = derived[a] = true;
      std::copy(shared.begin(), shared.end(),
                ext.shared.begin() + static_cast<std::ptrdiff_t>(a * ns));
      std::copy(locals.begin(), locals.end(),
                ext.locals.begin() + static_cast<std::ptrdiff_t>(a * nl));
    }
  }
  return ext;
}

std::vector<std::string> CandidatesOf(const Program& p, const Observations& observed) {
  std::vector<std::string> out;
  const Places places = PlacesOf(p);
  std::vector<bool> derived;
  const Observations o = FromPredecessors(p, observed, derived);
  GuardCandidates(p, places.named, places.labels, out);
  // The elements of a large shared array (a stack's 400 cells) get no candidates of their own:
  // one per element and location would be more than Houdini could check.
  std::map<std::string, std::size_t> elements;
  for (const Variable& v : p.shared) {
    if (v.name.find('[') != std::string::npos) ++elements[v.name.substr(0, v.name.find('['))];
  }
  std::vector<bool> large(p.shared.size(), false);
  for (std::size_t v = 0; v < p.shared.size(); ++v) {
    const std::string& name = p.shared[v].name;
    large[v] = name.find('[') != std::string::npos &&
               elements[name.substr(0, name.find('['))] > kMaxArrayCandidates;
  }
  const drb::IdVariables& ids = o.index;
  const std::string count = fmt::format("count({}: true)", places.j);
  // Per group of locations: the candidates' head, and what the variables took there.
  const auto group = [&](const std::vector<std::uint32_t>& pcs, const std::string& head) {
    bool reached = false;
    for (const std::uint32_t a : pcs) reached = reached || o.reached[a];
    bool only_derived = !pcs.empty();
    for (const std::uint32_t a : pcs) only_derived = only_derived && derived[a];
    if (!reached || only_derived) {  // no thread ever there
      if (!pcs.empty()) out.push_back(head.substr(0, head.size() - 4));
      if (!reached) return;
    }
    for (std::size_t v = 0; v < p.shared.size(); ++v) {
      if (large[v]) continue;
      Seen seen;
      for (const std::uint32_t a : pcs) seen.Merge(o.shared[a * p.shared.size() + v]);
      VariableCandidates(head, p.shared[v].name, p.shared[v], ids.shared[v], seen, count, out);
    }
    for (std::size_t v = 0; v < p.locals.size(); ++v) {
      if (p.locals[v].name.find('[') != std::string::npos) continue;  // a fixed-size array's
      Seen seen;
      for (const std::uint32_t a : pcs) seen.Merge(o.locals[a * p.locals.size() + v]);
      VariableCandidates(head, p.locals[v].name + "[self]", p.locals[v], ids.locals[v], seen, count,
                         out);
    }
  };
  for (std::size_t x = 0; x < places.named.size(); ++x) {
    const std::uint32_t a = places.named[x];
    group({a}, "pc[self] != " + places.labels[x] + " || ");
    if (!o.reached[a]) continue;
    for (std::size_t y = 0; y < places.named.size(); ++y) {
      const std::uint32_t b = places.named[y];
      if (o.reached[b] && !o.pairs[a * o.pcs + b]) {
        out.push_back(fmt::format("forall {0}: {0} <= self || pc[self] != {1} || pc[{0}] != {2}",
                                  places.j, places.labels[x], places.labels[y]));
      }
    }
  }
  group(places.unnamed, places.none_named);
  if (o.relative_off) {
    OwnPairs(p, o, places, out);
  } else {
    RelativePairs(p, o, places, out);
  }
  PairOrders(p, o, places, out);
  Existence(p, o, places, out);
  return out;
}

}  // namespace

struct CandidateReader::Explored {
  IntModel model;
  StateStore store;
  Explored(const Program& p, std::uint32_t n) : model(p, n), store(model.state_width()) {}
};

CandidateReader::CandidateReader(const Program& program)
    : program_(program),
      seen_(std::make_unique<Observations>(program)),
      relations_(std::make_unique<RelationReader>(program)),
      ranks_(std::make_unique<RankReader>(program, PlacesOf(program))),
      entries_(std::make_unique<EntryReader>(program)),
      differences_(std::make_unique<DifferenceReader>(program)),
      weights_(std::make_unique<WeightReader>(program)),
      blocker_(program) {}

CandidateReader::~CandidateReader() = default;

const CubeBlocker& CandidateReader::Blocker() {
  for (const std::unique_ptr<Explored>& e : explored_) {
    for (std::uint32_t id = 0; id < e->store.size(); ++id)
      blocker_.Record(e->model, e->store.Get(id));
  }
  explored_.clear();
  return blocker_;
}

std::vector<std::string> CandidateReader::Candidates() const {
  std::vector<std::string> out = CandidatesOf(program_, *seen_);
  relations_->Candidates(PlacesOf(program_), out);
  ranks_->Candidates(out);
  entries_->Candidates(PlacesOf(program_), out);
  differences_->Candidates(PlacesOf(program_), out);

  return out;
}

std::vector<std::string> CandidateReader::WeightedCandidates() const {
  std::vector<std::string> out;
  weights_->Candidates(PlacesOf(program_), out);
  return out;
}

bool CandidateReader::CountsByRank() const {
  std::vector<std::string> ranks;
  ranks_->Candidates(ranks);
  return !ranks.empty();
}

bool CandidateReader::Explore(std::uint32_t n, LimitWatch* limits,
                              OrderedFigures::Instance& figures, std::uint64_t most) {
  const Program& program = program_;
  Observations& seen = *seen_;
  explored_.push_back(std::make_unique<Explored>(program, n));
  IntModel& model = explored_.back()->model;
  model.SetLimits(limits);
  StateStore& store = explored_.back()->store;
  model.ForEachInitial([&](StateView s) { store.FindOrInsert(s); });
  std::vector<Word> state(model.state_width());
  figures.threads = n;
  for (std::uint32_t id = 0; id < store.size(); ++id) {
    const StateView at = store.Get(id);
    std::copy(at.begin(), at.end(), state.begin());
    const StateView s(state);
    if (model.AnyThreadFailed(s)) {
      figures.states = store.size();
      figures.failed = true;
      return true;
    }
    seen.Record(model, s);
    relations_->Record(model, s);
    ranks_->Record(model, s);
    entries_->Record(model, s);
    differences_->Record(model, s);
    weights_->Record(model, s);
    for (std::uint32_t t = 0; t < n; ++t) {
      model.ForEachSuccessor(s, t,
                             [&](std::uint32_t, StateView next) { store.FindOrInsert(next); });
    }
    if (store.size() > most || (limits != nullptr && limits->Poll())) {
      figures.states = store.size();
      return false;
    }
  }
  figures.states = store.size();
  figures.complete = true;
  return false;
}

}  // namespace druba::predabs
