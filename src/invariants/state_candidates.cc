#include "invariants/state_candidates.h"

#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include <fmt/format.h>

namespace druba::predabs::instance_detail {

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
std::optional<std::string> NotIn(const Program& p, const Observations& o, const Places& places,
                                 const std::vector<Int>& key, const std::string& who) {
  const auto at = std::find(places.named.begin(), places.named.end(), key[0]);
  if (at == places.named.end()) return std::nullopt;
  std::string out = fmt::format("pc[{}] != {}", who, places.labels[at - places.named.begin()]);
  const std::vector<bool>& live = o.own_live[key[0].convert_to<std::size_t>()];
  for (std::size_t v = 0; v < p.locals.size(); ++v) {
    if (p.locals[v].name.find('[') != std::string::npos || (o.live_keys && !live[v]) ||
        (!o.dropped.empty() && o.dropped[v])) {
      continue;
    }
    out += p.locals[v].type == Type::kBool
               ? fmt::format(" || {}{}[{}]", key[v + 1] != 0 ? "!" : "", p.locals[v].name, who)
               : fmt::format(" || {}[{}] != {}", p.locals[v].name, who, key[v + 1].str());
  }
  return out;
}

// `pc[self] != a || v[self] != 0 || lock == 1`: the values a shared variable took while a thread
// was in an own state (ProjectOwnStates's), where they are fewer than at its location (05_tas's
// lock is 1 while a thread waits at the loop's test with `cond` 0, the lock's taken, and may be 0
// with `cond` 1).
void OwnStateValues(const Program& p, const Observations& o, const Places& places,
                    const std::vector<bool>& large, const std::string& count,
                    std::vector<std::string>& out) {
  if (o.own.size() > kMaxOwnStates) return;
  const std::size_t ns = p.shared.size();
  for (const auto& [key, id] : o.own) {
    const std::vector<bool>& live = o.own_live[key[0].convert_to<std::size_t>()];
    bool any = false;  // a live local: else the location's candidates say it all
    for (std::size_t v = 0; v < p.locals.size(); ++v) {
      any = any || (live[v] && p.locals[v].name.find('[') == std::string::npos &&
                    (o.dropped.empty() || !o.dropped[v]));
    }
    const std::optional<std::string> not_in = NotIn(p, o, places, key, "self");
    const auto row = o.own_shared.find(id);
    if (!any || !not_in || row == o.own_shared.end()) continue;
    for (std::size_t v = 0; v < ns; ++v) {
      const Seen& here = row->second[v];
      const Seen& there = o.shared[key[0].convert_to<std::size_t>() * ns + v];
      if (large[v] || here.many || there.many || here.values.size() >= there.values.size()) {
        continue;
      }
      VariableCandidates(*not_in + " || ", p.shared[v].name, p.shared[v], o.index.shared[v], here,
                         count, out);
    }
  }
}

// Pairs of own states that threads i < j were never seen in, where their locations were.
void OwnPairs(const Program& p, const Observations& o, const Places& places,
              std::vector<std::string>& out) {
  if (o.own.size() > kMaxOwnStates) return;
  const std::size_t before = out.size();
  for (const auto& [a, ia] : o.own) {
    const std::optional<std::string> lower = NotIn(p, o, places, a, "self");
    if (!lower) continue;
    for (const auto& [b, ib] : o.own) {
      if (o.own_pairs.contains({ia, ib})) continue;
      if (!o.pairs[static_cast<std::size_t>(a[0]) * o.pcs + static_cast<std::size_t>(b[0])]) {
        continue;  // the locations alone say it
      }
      if (const std::optional<std::string> upper = NotIn(p, o, places, b, places.j)) {
        out.push_back(
            fmt::format("forall {0}: {0} <= self || {1} || {2}", places.j, *lower, *upper));
      }
    }
  }
  // The second stage's own states (live_keys) may be 48 whose pairs are thousands, most never
  // seen only for want of threads (04_incdec_cas: 1400): more than Houdini can check.
  if (o.live_keys && out.size() - before > kMaxOwnPairs) {
    out.resize(before);
  }
}

// `(forall k: <k not in own state a>) || exists m: <atom of m>`: whenever a thread is in own
// state a, some thread (another: a thread in a does not satisfy the atom) satisfies the atom. It
// names no `self`, so that the solver meets it as an existential fact of the state.
void Existence(const Program& p, const Observations& o, const Places& places,
               std::vector<std::string>& out) {
  if (o.own.size() > kMaxOwnStates) return;
  for (const auto& [a, ia] : o.own) {
    const std::optional<std::string> not_in = NotIn(p, o, places, a, places.k);
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

// Own states told apart by a local of many values (05_tas's backoff `delay`, 32 of them) beyond
// kMaxOwnStates: the same with each local that takes more than kMaxProjectedValues values in them
// left out, where that brings them to kMaxOwnStates or fewer. Pairs never seen are then pairs
// never seen whatever that local holds, and the atoms another thread satisfies those it
// satisfied in every own state merged.
Observations ProjectOwnStates(const Program& p, const Observations& o, bool always) {
  if ((!always && o.own.size() <= kMaxOwnStates) || o.own.size() > kMaxOwnRecorded) return o;
  const std::size_t nl = p.locals.size();
  std::vector<std::set<Int>> values(nl);
  for (const auto& [key, id] : o.own) {
    for (std::size_t v = 0; v < nl; ++v) values[v].insert(key[v + 1]);
  }
  Observations out = o;
  out.dropped.assign(nl, false);
  std::vector<bool> others(nl, false);  // read by other threads (Szymanski's flags): kept
  for (const Statement& s : p.statements) drb::OthersLocals(s.body, others);
  for (std::size_t v = 0; v < nl; ++v) {
    out.dropped[v] = values[v].size() > kMaxProjectedValues && !others[v];
  }
  if (std::find(out.dropped.begin(), out.dropped.end(), true) == out.dropped.end()) return o;
  out.own.clear();
  out.own_pairs.clear();
  out.own_shared.clear();
  out.others.clear();
  std::map<std::uint32_t, std::uint32_t> to;  // an own state's number, projected
  for (const auto& [key, id] : o.own) {
    std::vector<Int> projected = key;
    for (std::size_t v = 0; v < nl; ++v) {
      if (out.dropped[v]) projected[v + 1] = 0;
    }
    const auto next = static_cast<std::uint32_t>(out.own.size());
    to[id] = out.own.emplace(std::move(projected), next).first->second;
  }
  if (out.own.size() > kMaxOwnStates) return o;
  for (const auto& [a, b] : o.own_pairs) out.own_pairs.emplace(to[a], to[b]);
  for (const auto& [id, row] : o.own_shared) {
    const auto [it, fresh] = out.own_shared.emplace(to[id], row);
    for (std::size_t v = 0; v < row.size() && !fresh; ++v) it->second[v].Merge(row[v]);
  }
  for (const auto& entry : o.others) {
    const std::set<std::uint64_t>& atoms = entry.second;
    const auto [it, fresh] = out.others.emplace(to[entry.first], atoms);
    if (!fresh) std::erase_if(it->second, [&](std::uint64_t a) { return !atoms.contains(a); });
  }
  return out;
}

}  // namespace druba::predabs::instance_detail
