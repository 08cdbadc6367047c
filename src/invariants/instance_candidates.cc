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
#include "invariants/flag_candidates.h"
#include "invariants/instance_observations.h"
#include "invariants/pair_candidates.h"
#include "invariants/rank_candidates.h"
#include "invariants/state_candidates.h"
#include "invariants/value_seen.h"
#include "invariants/weight_candidates.h"

namespace druba::predabs {

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
using instance_detail::Existence;
using instance_detail::kMaxArrayCandidates;
using instance_detail::kMaxAtomValue;
using instance_detail::kMaxOwnStates;
using instance_detail::kMaxValues;
using instance_detail::NotIn;
using instance_detail::OwnPairs;
using instance_detail::OwnStateValues;
using instance_detail::ProjectOwnStates;
using instance_detail::Seen;
using instance_detail::VariableCandidates;

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
            seen == 7 || (o.live_keys && (!o.own_live[a][v] || !o.own_live[b][v])) ||
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

// [shared variable]: an element of a large shared array (a stack's 400 cells), which gets no
// candidates of its own: one per element and location would be more than Houdini could check.
std::vector<bool> LargeArrays(const Program& p) {
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
  return large;
}

// What CandidatesOf reads a group of locations' candidates from.
struct GroupInput {
  const Program& p;
  const Observations& o;
  const std::vector<bool>& derived;  // [pc]: reached only in FromPredecessors
  const std::vector<bool>& large;    // LargeArrays
  const std::string& count;          // `count(j: true)`
};

// Per group of locations `pcs` (the candidates' `head` says where a thread is not): no thread
// there, or what the variables took there.
void GroupCandidates(const GroupInput& in, const std::vector<std::uint32_t>& pcs,
                     const std::string& head, std::vector<std::string>& out) {
  const Program& p = in.p;
  const Observations& o = in.o;
  const std::vector<bool>& derived = in.derived;
  const std::vector<bool>& large = in.large;
  const std::string& count = in.count;
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
    VariableCandidates(head, p.shared[v].name, p.shared[v], o.index.shared[v], seen, count, out);
  }
  for (std::size_t v = 0; v < p.locals.size(); ++v) {
    if (p.locals[v].name.find('[') != std::string::npos) continue;  // a fixed-size array's
    // The second stage leaves out what a value no thread reads again showed: the first
    // stage keeps it, a ghost of what the thread did (a filter lock's `lv` at `crit`, past
    // every level, which its proof needs).
    if (o.live_keys &&
        std::none_of(pcs.begin(), pcs.end(), [&](std::uint32_t a) { return o.own_live[a][v]; })) {
      continue;
    }
    Seen seen;
    for (const std::uint32_t a : pcs) seen.Merge(o.locals[a * p.locals.size() + v]);
    VariableCandidates(head, p.locals[v].name + "[self]", p.locals[v], o.index.locals[v], seen,
                       count, out);
  }
}

std::vector<std::string> CandidatesOf(const Program& p, const Observations& observed) {
  std::vector<std::string> out;
  const Places places = PlacesOf(p);
  std::vector<bool> derived;
  const Observations o = FromPredecessors(p, observed, derived);
  GuardCandidates(p, places.named, places.labels, out);
  const std::vector<bool> large = LargeArrays(p);
  const std::string count = fmt::format("count({}: true)", places.j);
  const auto group = [&](const std::vector<std::uint32_t>& pcs, const std::string& head) {
    GroupCandidates({p, o, derived, large, count}, pcs, head, out);
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
  // The second stage's own states (Observations::live_keys) with the locals of many values left
  // out: a pair or value seen at a few of them says nothing of the others.
  std::optional<Observations> projected;
  if (o.live_keys) projected = ProjectOwnStates(p, o, /*always=*/true);
  const Observations& own = projected ? *projected : o;
  if (o.live_keys) OwnStateValues(p, own, places, large, count, out);
  if (o.relative_off) {
    OwnPairs(p, own, places, out);
  } else {
    RelativePairs(p, o, places, out);
  }
  PairOrders(p, own, places, out);
  Existence(p, own, places, out);
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
  if (blocked_) return blocker_;
  blocked_ = true;
  for (const std::unique_ptr<Explored>& e : explored_) {
    for (std::uint32_t id = 0; id < e->store.size(); ++id)
      blocker_.Record(e->model, e->store.Get(id));
  }
  return blocker_;
}

std::vector<std::string> CandidateReader::OwnStateCandidates(LimitWatch* limits) const {
  Observations live(program_, /*by_live=*/true);
  FlagOrderReader flags(program_, *seen_);
  for (const std::unique_ptr<Explored>& e : explored_) {
    for (std::uint32_t id = 0; id < e->store.size(); ++id) {
      if (limits != nullptr && limits->Poll()) return {};
      live.Record(e->model, e->store.Get(id));
      flags.Record(e->model, e->store.Get(id));
    }
  }
  std::vector<std::string> out = Candidates(live);
  flags.Candidates(PlacesOf(program_), out);
  return out;
}

std::vector<std::string> CandidateReader::Candidates() const {
  return Candidates(*seen_);
}

std::vector<std::string> CandidateReader::Candidates(const Observations& seen) const {
  std::vector<std::string> out = CandidatesOf(program_, seen);
  relations_->Candidates(PlacesOf(program_), out, seen.live_keys);
  ranks_->Candidates(out);
  entries_->Candidates(PlacesOf(program_), out);
  differences_->Candidates(PlacesOf(program_), out, seen.live_keys);

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
