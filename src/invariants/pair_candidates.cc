#include "invariants/pair_candidates.h"

#include <algorithm>

#include <fmt/format.h>

#include "drb/liveness.h"
#include "drb/ordered.h"

namespace druba::predabs {
namespace {

constexpr std::size_t kMaxListed = 4;

// `name == c || ...` over the values, `name` / `!name` for a Boolean's one value; none when the
// values are not few.
std::string ValuesText(const std::string& name, bool boolean,
                       const RelationReader::Values& values) {
  if (values.many || values.seen.empty()) return {};
  if (boolean) {
    if (values.seen.size() != 1) return {};
    return (*values.seen.begin() != 0 ? "" : "!") + name;
  }
  std::string out;
  for (const std::int64_t v : values.seen) {
    out += fmt::format("{}{} == {}", out.empty() ? "" : " || ", name, v);
  }
  return out;
}

bool Single(const RelationReader::Values& values) {
  return !values.many && values.seen.size() == 1;
}

}  // namespace

void RelationReader::Values::Add(const Int& v) {
  if (many) return;
  if (v > Int(INT64_MAX) || v < Int(INT64_MIN)) {
    many = true;
    return;
  }
  seen.insert(static_cast<std::int64_t>(v));
  many = seen.size() > kMaxListed;
}

RelationReader::RelationReader(const Program& program)
    : program_(program),
      pcs_(program.statements.size() + 2),
      live_(drb::LiveLocals(program)),
      any_live_(drb::LiveToAnyThread(program)) {
  const drb::IdVariables namers = drb::ThreadNamers(program);
  const drb::IdVariables ids = drb::IdHolders(program);
  for (std::uint32_t v = 0; v < program.locals.size(); ++v) {
    const Variable& var = program.locals[v];
    if (var.name.find('[') != std::string::npos || var.type == Type::kBool) continue;
    if (namers.locals[v]) scans_.push_back(v);
    if (!ids.locals[v] && !namers.locals[v]) numbers_.push_back(v);
  }
  for (std::uint32_t v = 0; v < program.shared.size(); ++v) {
    const Variable& var = program.shared[v];
    if (var.name.find('[') == std::string::npos && var.type != Type::kBool && !ids.shared[v] &&
        !namers.shared[v]) {
      counters_.push_back(v);
    }
  }
  const std::size_t pairs = program.pairs.size();
  by_self_.resize(pairs * 2 * pcs_);
  by_both_.resize(pairs * 2 * pcs_ * pcs_);
  by_scan_.resize(pairs * pcs_ * scans_.size() * 3);
  orders_.resize(pcs_ * pcs_ * numbers_.size() * pairs * 4, 0);
  against_.resize((pcs_ + 1) * numbers_.size() * counters_.size(), 0);
}

void RelationReader::Record(const IntModel& m, StateView s) {
  const ValueTable& values = m.values();
  const std::uint32_t n = m.num_threads();
  std::vector<Int> counters;
  for (const std::uint32_t x : counters_) counters.push_back(values.Decode(s[x]));
  for (std::uint32_t i = 0; i < n; ++i) {
    const std::size_t a = s[m.PcSlot(i)];
    if (a >= pcs_) continue;
    for (std::size_t w = 0; w < numbers_.size(); ++w) {
      const Int mine = values.Decode(s[m.LocalSlot(i, numbers_[w])]);
      for (std::size_t x = 0; x < counters_.size(); ++x) {
        const std::uint8_t o = Order(mine, counters[x]);
        against_[Against(a, w, x)] |= o;
        against_[Against(pcs_, w, x)] |= o;
      }
    }
    if (program_.pairs.empty()) continue;
    for (std::uint32_t j = 0; j < n; ++j) {
      if (j != i) RecordPair(m, s, i, j);
    }
    for (std::size_t k = 0; k < scans_.size(); ++k) {
      if (!live_[a][scans_[k]]) continue;
      const Int at = values.Decode(s[m.LocalSlot(i, scans_[k])]);
      for (std::uint32_t j = 0; j < n; ++j) {
        const int rel = j < at ? 0 : j == at ? 1 : 2;
        for (std::uint32_t v = 0; v < program_.pairs.size(); ++v) {
          by_scan_[Scan(v, a, k, rel)].Add(values.Decode(s[m.PairSlot(i, v, j)]));
        }
      }
    }
  }
}

void RelationReader::RecordPair(const IntModel& m, StateView s, std::uint32_t i, std::uint32_t j) {
  const ValueTable& values = m.values();
  const std::size_t a = s[m.PcSlot(i)];
  const std::size_t b = s[m.PcSlot(j)];
  if (b >= pcs_) return;
  for (std::uint32_t v = 0; v < program_.pairs.size(); ++v) {
    const Int row = values.Decode(s[m.PairSlot(i, v, j)]);
    const Int column = values.Decode(s[m.PairSlot(j, v, i)]);
    by_self_[Side(v, true, a)].Add(row);
    by_self_[Side(v, false, a)].Add(column);
    by_both_[Both(v, true, a, b)].Add(row);
    by_both_[Both(v, false, a, b)].Add(column);
    if (i > j || program_.pairs[v].type != Type::kBool) continue;
    for (std::size_t w = 0; w < numbers_.size(); ++w) {
      const std::uint8_t o = Order(values.Decode(s[m.LocalSlot(i, numbers_[w])]),
                                   values.Decode(s[m.LocalSlot(j, numbers_[w])]));
      orders_[OrderAt(a, b, w, v, true, row != 0)] |= o;
      orders_[OrderAt(a, b, w, v, false, column != 0)] |= o;
    }
  }
}

void RelationReader::Candidates(const Places& places, std::vector<std::string>& out,
                                bool live) const {
  PairCandidates(places, out);
  ScanCandidates(places, out);
  OrderCandidates(places, out);
  SharedCandidates(places, out, live);
}

// `forall j: j == self || pc[self] != a || ok[self][j]`, and with j's location where self's alone
// does not say it.
void RelationReader::PairCandidates(const Places& places, std::vector<std::string>& out) const {
  const std::string& j = places.j;
  for (std::size_t v = 0; v < program_.pairs.size(); ++v) {
    const Variable& var = program_.pairs[v];
    const bool boolean = var.type == Type::kBool;
    for (const bool row : {true, false}) {
      const std::string entry =
          row ? fmt::format("{}[self][{}]", var.name, j) : fmt::format("{}[{}][self]", var.name, j);
      // The locations no predicate can name, as one group.
      Values unnamed;
      for (const std::uint32_t a : places.unnamed) {
        const Values& here = by_self_[Side(v, row, a)];
        for (const std::int64_t value : here.seen) unnamed.Add(Int(value));
        unnamed.many = unnamed.many || here.many;
      }
      if (const std::string text = ValuesText(entry, boolean, unnamed); !text.empty()) {
        out.push_back(fmt::format("forall {0}: {0} == self || {1}{2}", j, places.none_named, text));
      }
      for (std::size_t x = 0; x < places.named.size(); ++x) {
        const std::size_t a = places.named[x];
        const Values& alone = by_self_[Side(v, row, a)];
        const std::string head =
            fmt::format("forall {0}: {0} == self || pc[self] != {1} || ", j, places.labels[x]);
        if (const std::string text = ValuesText(entry, boolean, alone); !text.empty()) {
          out.push_back(head + text);
        }
        if (Single(alone)) continue;
        for (std::size_t y = 0; y < places.named.size(); ++y) {
          const std::string text =
              ValuesText(entry, boolean, by_both_[Both(v, row, a, places.named[y])]);
          if (text.empty()) continue;
          out.push_back(fmt::format("{}pc[{}] != {} || {}", head, j, places.labels[y], text));
        }
      }
    }
  }
}

// `forall j: pc[self] != clear || j >= k[self] || !ok[self][j]`: the entries a scan has passed.
void RelationReader::ScanCandidates(const Places& places, std::vector<std::string>& out) const {
  static const char* const kOutside[3] = {">=", "!=", "<="};  // j is not below, at, above k
  const std::string& j = places.j;
  for (std::size_t v = 0; v < program_.pairs.size(); ++v) {
    const Variable& var = program_.pairs[v];
    const std::string entry = fmt::format("{}[self][{}]", var.name, j);
    for (std::size_t x = 0; x < places.named.size(); ++x) {
      for (std::size_t k = 0; k < scans_.size(); ++k) {
        for (int rel = 0; rel < 3; ++rel) {
          const std::string text = ValuesText(entry, var.type == Type::kBool,
                                              by_scan_[Scan(v, places.named[x], k, rel)]);
          if (text.empty()) continue;
          out.push_back(fmt::format("forall {0}: pc[self] != {1} || {0} {2} {3}[self] || {4}", j,
                                    places.labels[x], kOutside[rel],
                                    program_.locals[scans_[k]].name, text));
        }
      }
    }
  }
}

// `forall j: j <= self || pc[self] != a || pc[j] != b || !ok[self][j] || ts[self] < ts[j]`: how
// the numbers of threads self < j compare where an entry between them holds, when that says more
// than the two locations do.
void RelationReader::OrderCandidates(const Places& places, std::vector<std::string>& out) const {
  const std::string& j = places.j;
  for (std::size_t x = 0; x < places.named.size(); ++x) {
    for (std::size_t y = 0; y < places.named.size(); ++y) {
      const std::size_t a = places.named[x];
      const std::size_t b = places.named[y];
      for (std::size_t w = 0; w < numbers_.size(); ++w) {
        const std::string& name = program_.locals[numbers_[w]].name;
        for (std::size_t v = 0; v < program_.pairs.size(); ++v) {
          for (const bool row : {true, false}) {
            const std::uint8_t set = orders_[OrderAt(a, b, w, v, row, true)];
            const std::uint8_t unset = orders_[OrderAt(a, b, w, v, row, false)];
            const std::string entry = row ? fmt::format("{}[self][{}]", program_.pairs[v].name, j)
                                          : fmt::format("{}[{}][self]", program_.pairs[v].name, j);
            for (const bool holds : {true, false}) {
              const std::uint8_t seen = holds ? set : unset;
              if (!Informative(seen) || seen == (set | unset)) continue;
              out.push_back(fmt::format(
                  "forall {0}: {0} <= self || pc[self] != {1} || pc[{0}] != {2} || {3}{4} || "
                  "{5}[self] {6} {5}[{0}]",
                  j, places.labels[x], places.labels[y], holds ? "!" : "", entry, name,
                  kOrderOps[seen]));
            }
          }
        }
      }
    }
  }
}

// `ts[self] <= clock`, and where a location says more, `pc[self] != a || ts[self] < clock`.
void RelationReader::SharedCandidates(const Places& places, std::vector<std::string>& out,
                                      bool live) const {
  for (std::size_t w = 0; w < numbers_.size(); ++w) {
    const std::string& name = program_.locals[numbers_[w]].name;
    for (std::size_t x = 0; x < counters_.size(); ++x) {
      const std::string& counter = program_.shared[counters_[x]].name;
      const std::uint8_t anywhere = against_[Against(pcs_, w, x)];
      if (Informative(anywhere)) {
        out.push_back(fmt::format("{}[self] {} {}", name, kOrderOps[anywhere], counter));
      }
      for (std::size_t k = 0; k < places.named.size(); ++k) {
        const std::uint8_t here = against_[Against(places.named[k], w, x)];
        if (!Informative(here) || here == anywhere ||
            (live && !any_live_[places.named[k]][numbers_[w]])) {
          continue;
        }
        out.push_back(fmt::format("pc[self] != {} || {}[self] {} {}", places.labels[k], name,
                                  kOrderOps[here], counter));
      }
    }
  }
}

}  // namespace druba::predabs
