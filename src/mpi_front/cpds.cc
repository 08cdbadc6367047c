// druba-mpi's CPDS front end: a `.pds` model with its top-K abstraction, the sandwich proof as
// druba computes it (cpds::MakeSandwich), and a safe verdict's certificate as druba writes it.
#include <algorithm>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/core.h>

#include "abstraction/abstraction.h"
#include "cpds/describer.h"
#include "cpds/model.h"
#include "cpds/run_hooks.h"
#include "cpds/top_k.h"
#include "front/cpds.h"
#include "mpi_front/count_run.h"
#include "mpi_front/cpds.h"
#include "run/report.h"

namespace druba::mpi {
namespace {

using distributed::Outcome;
using distributed::Property;

// After exhaustion, druba's certificate (cpds::CpdsHooks::Certify): the union when it is closed
// under every action (then `out` stays empty, and process 0 writes the union); otherwise the
// reachable states under the top-k abstraction with k one more than the deepest stack, exact on
// them (CpdsHooks::CertifyExact), read off every process's states and gathered at process 0.
// Collective.
void CertifyExhausted(const distributed::Comm& comm, const distributed::Run<cpds::CpdsModel>& run,
                      const cpds::CpdsHooks& hooks, run::CountRun& out) {
  std::uint64_t checks = 0;
  const bool open = comm.rank() == 0 && CheckClosure(hooks.abs, *run.abstract_union(), &checks,
                                                     /*all_actions=*/true);
  if (comm.Max(open ? 1 : 0) == 0) return;
  constexpr std::uint32_t kMaxDepth = cpds::CpdsHooks::kMaxExactDepth;
  std::uint64_t k = 1;
  run.ForEachState([&](StateView s) {
    for (std::uint32_t t = 0; t < hooks.model.num_threads(); ++t) {
      k = std::max<std::uint64_t>(k, hooks.model.stacks().DepthUpTo(s[1 + t], kMaxDepth) + 1);
    }
  });
  k = comm.Max(k);
  if (k > kMaxDepth) {
    out.certificate_note = fmt::format(
        "the exact abstract set the exhaustive search found is not closed under the abstract "
        "post, and a reachable stack is deeper than {} symbols",
        kMaxDepth - 1);
    return;
  }
  const cpds::TopKAbstraction deep(hooks.model, static_cast<std::uint32_t>(k), std::nullopt);
  StateStore mine(deep.width());
  std::vector<Word> a(deep.width());
  run.ForEachState([&](StateView s) {
    deep.Abstract(s, std::span<Word>(a));
    mine.FindOrInsert(StateView(a));
  });
  StateStore exact(deep.width());
  distributed::GatherStates(comm, mine, 0, exact);
  if (comm.rank() != 0) return;
  hooks.Write(out, exact, static_cast<std::uint32_t>(k));
}

// The sandwich proof of a top-K abstraction, as druba's (cpds::MakeSandwich): O with pops by the
// may-lie-below relation, relative to O (joint) or to every tuple (static).
distributed::SandwichKind SandwichOf(const cpds::TopKAbstraction& abs, const cpds::Cpds& cpds,
                                     const run::RunOptions& o, bool has_target) {
  const bool joint = o.upper_bound != run::UpperBound::kStatic;
  const SandwichSetup setup = cpds::MakeSandwich(abs, joint, has_target || o.deadlock);
  distributed::SandwichKind kind;
  kind.width = abs.width();
  kind.symmetry = setup.symmetry;
  if (o.symmetric_search) kind.concrete_symmetry = setup.concrete_symmetry;
  kind.has_property = setup.has_property;
  kind.orbit_search_calls = setup.symmetric_head_start;
  kind.violates = [&abs](StateView a) { return abs.Violates(a); };
  kind.facts = [&abs, joint](const StateStore& part) {
    std::vector<std::uint8_t> bytes;
    if (joint) abs.Facts(part).Write(bytes);
    return bytes;
  };
  using Post = distributed::PostOf<cpds::TopKAbstraction::ClosureOracle>;
  kind.oracle = [&abs, &cpds, joint](const std::vector<std::vector<std::uint8_t>>& all)
      -> std::unique_ptr<distributed::AbstractPost> {
    if (!joint) return std::make_unique<Post>(abs.MakeStaticOracle());
    cpds::VisibleFacts facts(cpds);
    for (const std::vector<std::uint8_t>& part : all) {
      if (!facts.Read(part)) throw std::runtime_error("a process sent facts it cannot read");
    }
    return std::make_unique<Post>(abs.MakeOracle(facts));
  };
  return kind;
}

// The options of druba's command line the distributed run takes (docs/distributed.md).
constexpr std::string_view kCpdsTestOptions[] = {
    "--json",     "--json-out",   "--trace-out",    "--trace-svg", "--schedule-svg", "--deadlock",
    "--progress", "--time-limit", "--memory-limit", "--rounds",    "--delays",       "--max-delays",
    "--init",     "--spec",       "--target",       "--top",       "--dump-abstract"};
constexpr std::string_view kCpdsVerifyOptions[] = {
    "--json",        "--json-out",         "--trace-out",   "--trace-svg",     "--schedule-svg",
    "--deadlock",    "--progress",         "--time-limit",  "--memory-limit",  "--exhaust-share",
    "--upper-bound", "--symmetric-search", "--certificate", "--dump-abstract", "--init",
    "--spec",        "--target",           "--top"};

// The model, read by every process (ReadFailed at every process when one cannot).
front::LoadedCpds LoadEverywhere(const distributed::Comm& comm, const std::string& path,
                                 const cpds::CpdsOptions& given) {
  std::optional<front::LoadedCpds> read;
  std::string error;
  try {
    read = front::LoadCpds(path, given);
  } catch (const InputError& e) {
    error = e.what();
  }
  AgreeRead(comm, error);
  return std::move(*read);
}

// The run's property: a state whose abstract state violates the target (or deadlock); the
// closure test, and the sandwich proof unless --upper-bound off. `scratch` is the abstract
// state's words.
Property PropertyOf(const cpds::TopKAbstraction& abs, const cpds::Cpds& cpds,
                    const run::RunOptions& o, bool has_target, std::vector<Word>& scratch) {
  Property property;
  property.abstract_width = abs.width();
  property.abstract = [&abs](StateView s, std::span<Word> out) { abs.Abstract(s, out); };
  property.violates = [&abs, &scratch](StateView s) {
    abs.Abstract(s, scratch);
    return abs.Violates(StateView(scratch));
  };
  property.closure = [&abs](const StateStore& set, std::uint64_t* checks) {
    return CheckClosure(abs, set, checks);
  };
  if (o.upper_bound != run::UpperBound::kOff) {
    property.sandwich = SandwichOf(abs, cpds, o, has_target);
  }
  return property;
}

// What a run's end keeps for the report (in `out`, at process 0): a safe verdict's certificate, as
// druba writes it (the union is the final abstract set), which `druba check` decides; the
// abstract states of --dump-abstract. Collective.
void KeepAnswer(const distributed::Comm& comm, const distributed::Run<cpds::CpdsModel>& run,
                const Outcome& done, const cpds::CpdsHooks& hooks, const run::RunOptions& o,
                run::CountRun& out) {
  out = {};
  out.result.proof = done.result.proof;
  const bool certify = !o.certificate.empty() && done.result.verdict == Verdict::kSafe;
  if (certify && done.result.proof == Proof::kExhausted) CertifyExhausted(comm, run, hooks, out);
  if (comm.rank() != 0) return;
  const StateStore* set = run.abstract_union();
  if (set == nullptr) return;
  if (run::WantsAbstractLines(o, false)) {
    for (std::uint32_t id = 0; id < set->size(); ++id) {
      out.abstract_states.push_back(hooks.abs.Describe(set->Get(id)));
    }
    std::sort(out.abstract_states.begin(), out.abstract_states.end());
  }
  if (certify && out.certificate_note.empty() && out.certificate.empty()) {
    hooks.Write(out, *set, hooks.abs.k());
  }
}

}  // namespace

std::span<const std::string_view> CpdsKind::Takes(run::Command command) const {
  if (command == run::Command::kVerify) return kCpdsVerifyOptions;
  return kCpdsTestOptions;
}

run::Outcome CpdsKind::Run(distributed::Comm& comm, const Request& request, LimitWatch& limits) {
  const run::RunOptions& o = request.options;
  const cpds::CpdsOptions& given = front_.options();
  const front::LoadedCpds loaded = LoadEverywhere(comm, o.model, given);
  cpds::CpdsModel model(loaded.cpds, loaded.init);
  cpds::TopKAbstraction abs(model, given.top, loaded.target);
  abs.SetDeadlock(o.deadlock);
  std::vector<Word> scratch(abs.width());
  const Property property = PropertyOf(abs, loaded.cpds, o, loaded.target.has_value(), scratch);
  const cpds::CpdsHooks hooks{o, given, loaded.digest, model, abs, loaded.target.has_value()};
  Request asked = request;
  asked.search.gather_answer = !o.certificate.empty() || !o.dump_abstract.empty();
  run::CountRun out;
  Spread spread;
  const Outcome done =
      Execute(comm, model, property, asked, limits, spread,
              [&](const Outcome& end, const distributed::Run<cpds::CpdsModel>& run) {
                KeepAnswer(comm, run, end, hooks, o, out);
              });
  run::Section section = spread.Section(comm);
  if (comm.rank() != 0) return {};
  SetFigures(done, model.num_threads(), out);
  out.relation = hooks.Relation();
  const cpds::CpdsDescriber kind{model, abs};
  out.closure_break = run::BreakOf(kind, abs, out.result.closure_failure);
  DescribeViolation(kind, done.trace, out);
  run::Report report = front::CpdsReport(o, given, loaded, abs, std::move(out));
  report.sections.push_back(std::move(section));
  return {run::Outcome::Kind::kReport, std::move(report), "", loaded.warnings};
}

}  // namespace druba::mpi
