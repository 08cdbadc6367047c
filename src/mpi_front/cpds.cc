// druba-mpi's CPDS front end: a `.pds` model with its top-K abstraction, the sandwich proof as
// druba computes it (cpds::MakeSandwich), and a safe verdict's certificate as druba writes it.
#include <algorithm>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/core.h>

#include "abstraction/abstraction.h"
#include "cpds/describer.h"
#include "cpds/model.h"
#include "cpds/run_hooks.h"
#include "cpds/top_k.h"
#include "front/cpds.h"
#include "mpi_front/front.h"

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
                                     const Options& o, bool has_target) {
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

}  // namespace

Described RunCpds(distributed::Comm& comm, const Options& o, LimitWatch& limits) {
  std::optional<front::LoadedCpds> read;
  std::string error;
  try {
    read = front::LoadCpds(o.model, o.cpds);
  } catch (const InputError& e) {
    error = e.what();
  }
  AgreeRead(comm, error);
  const front::LoadedCpds& loaded = *read;
  cpds::CpdsModel model(loaded.cpds, loaded.init);
  cpds::TopKAbstraction abs(model, o.cpds.top, loaded.target);
  abs.SetDeadlock(o.deadlock);
  std::vector<Word> scratch(abs.width());
  Property property;
  property.abstract_width = abs.width();
  property.abstract = [&abs](StateView s, std::span<Word> out) { abs.Abstract(s, out); };
  property.violates = [&](StateView s) {
    abs.Abstract(s, scratch);
    return abs.Violates(StateView(scratch));
  };
  Described out;
  property.closure = [&abs](const StateStore& set, std::uint64_t* checks) {
    return CheckClosure(abs, set, checks);
  };
  if (o.upper_bound != run::UpperBound::kOff)
    property.sandwich = SandwichOf(abs, loaded.cpds, o, loaded.target.has_value());
  // A safe verdict's certificate, as druba writes it (the union is the final abstract set), which
  // `druba check` decides.
  run::RunOptions request;
  request.certificate = o.certificate;
  request.deadlock = o.deadlock;
  const cpds::CpdsHooks hooks{request, o.cpds, loaded.digest,
                              model,   abs,    loaded.target.has_value()};
  const auto at_end = [&](const Outcome& done, const distributed::Run<cpds::CpdsModel>& run) {
    const bool certify = !o.certificate.empty() && done.result.verdict == Verdict::kSafe;
    run::CountRun certified;
    certified.result.proof = done.result.proof;
    if (certify && done.result.proof == Proof::kExhausted) {
      CertifyExhausted(comm, run, hooks, certified);
    }
    if (comm.rank() != 0) return;
    // A file that cannot be written is said after the report, not thrown: process 0 would leave
    // the others waiting in the run's last collective.
    try {
      const StateStore* set = run.abstract_union();
      if (!o.dump_abstract.empty()) DumpAbstract(o.dump_abstract, done, abs, *set);
      if (!certify) return;
      if (!certified.certificate_note.empty()) {
        out.certificate_note = certified.certificate_note;
        return;
      }
      if (certified.certificate.empty()) hooks.Write(certified, *set, abs.k());
      WriteFileAtomically(o.certificate, certified.certificate);
    } catch (const InputError& e) {
      out.output_error = e.what();
    }
  };
  out.outcome = Execute(comm, model, property, o, limits, at_end);
  out.threads = model.num_threads();
  out.subject = fmt::format("{} threads, top-{} abstraction{}", model.num_threads(), abs.k(),
                            loaded.target ? ", target " + loaded.target_text : "");
  DescribeViolation(cpds::CpdsDescriber{model, abs}, out);
  // As druba's (front/cpds.cc), which `druba replay` reads.
  out.trace_header = {
      {"target", loaded.target_text}, {"top", o.cpds.top}, {"digest", loaded.digest}};
  return out;
}

}  // namespace druba::mpi
