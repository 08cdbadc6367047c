// Micro-benchmarks of the hot parts: the state stores, stack interning, successor generation, the
// closure test, whole runs, and reading and checking a certificate. Run:
// build/perf/druba_micro_benchmarks
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "abstraction/driver.h"
#include "check/cpds_check.h"
#include "common/files.h"
#include "common/json_reader.h"
#include "cpds/certificate.h"
#include "cpds/model.h"
#include "cpds/reader.h"
#include "cpds/top_k.h"
#include "explore/state_store.h"

namespace druba {
namespace {

void BM_StateStoreFindOrInsert(benchmark::State& state) {
  const auto width = static_cast<std::size_t>(state.range(0));
  std::mt19937 rng(1);
  std::vector<Word> words(width * 100000);
  for (Word& w : words) w = rng() % 64;
  for (auto _ : state) {
    StateStore store(width);
    for (std::size_t i = 0; i < 100000; ++i) {
      benchmark::DoNotOptimize(store.FindOrInsert(StateView(words.data() + i * width, width)));
    }
  }
  state.SetItemsProcessed(state.iterations() * 100000);
}
BENCHMARK(BM_StateStoreFindOrInsert)->Arg(4)->Arg(9);

// The explorer's store: the same states packed at one byte per word.
void BM_PackedStateStoreFindOrInsert(benchmark::State& state) {
  const auto width = static_cast<std::size_t>(state.range(0));
  std::mt19937 rng(1);
  std::vector<Word> words(width * 100000);
  for (Word& w : words) w = rng() % 64;
  for (auto _ : state) {
    PackedStateStore store(width);
    for (std::size_t i = 0; i < 100000; ++i) {
      benchmark::DoNotOptimize(store.FindOrInsert(StateView(words.data() + i * width, width)));
    }
  }
  state.SetItemsProcessed(state.iterations() * 100000);
}
BENCHMARK(BM_PackedStateStoreFindOrInsert)->Arg(4)->Arg(9);

void BM_StackPush(benchmark::State& state) {
  for (auto _ : state) {
    cpds::StackTable stacks;
    cpds::StackId id = cpds::StackTable::kEmpty;
    for (std::uint32_t i = 0; i < 100000; ++i) id = stacks.Push(i % 7, i % 3 == 0 ? 0 : id);
    benchmark::DoNotOptimize(id);
  }
  state.SetItemsProcessed(state.iterations() * 100000);
}
BENCHMARK(BM_StackPush);

std::pair<cpds::Cpds, cpds::InitialState> Load(const std::string& name) {
  const std::string base = std::string(DRUBA_BENCHMARKS) + "/" + name;
  Warnings warnings;
  cpds::Cpds c = cpds::ParsePds(ReadFile(base + ".pds"), base + ".pds", &warnings);
  cpds::InitialState init = cpds::ParseInit(ReadFile(base + ".init"), base + ".init", c);
  return {c, init};
}

// Successor generation: every thread's successors of the first 20,000 states a breadth-first
// search of Bluetooth3-21 reaches; items are successor calls.
void BM_Successors(benchmark::State& state) {
  const auto [c, init] = Load("03_Bluetooth-3/Bluetooth3-21");
  cpds::CpdsModel model(c, init);
  StateStore seen(model.state_width());
  model.ForEachInitial([&](StateView s) { seen.FindOrInsert(s); });
  for (std::uint32_t id = 0; id < seen.size() && seen.size() < 20000; ++id) {
    const std::vector<Word> from(seen.Get(id).begin(), seen.Get(id).end());
    for (std::uint32_t t = 0; t < model.num_threads(); ++t) {
      model.ForEachSuccessor(StateView(from), t,
                             [&](std::uint32_t, StateView to) { seen.FindOrInsert(to); });
    }
  }
  std::int64_t calls = 0;
  for (auto _ : state) {
    std::uint64_t successors = 0;
    for (std::uint32_t id = 0; id < seen.size(); ++id) {
      const std::vector<Word> from(seen.Get(id).begin(), seen.Get(id).end());
      for (std::uint32_t t = 0; t < model.num_threads(); ++t) {
        model.ForEachSuccessor(StateView(from), t, [&](std::uint32_t, StateView) { ++successors; });
        ++calls;
      }
    }
    benchmark::DoNotOptimize(successors);
  }
  state.SetItemsProcessed(calls);
}
BENCHMARK(BM_Successors)->Unit(benchmark::kMillisecond);

// The closure test alone, on the abstract set of a finished run; items are abstract successors
// checked.
void BM_ClosureTest(benchmark::State& state, const char* name, std::uint32_t k) {
  const auto [c, init] = Load(name);
  cpds::CpdsModel model(c, init);
  const cpds::TopKAbstraction abs(model, k, std::nullopt);
  PlateauDriver run(model, abs);
  run.Verify();
  std::uint64_t checks = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(CheckClosure(abs, run.abstract_states(), &checks));
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(checks));
}
BENCHMARK_CAPTURE(BM_ClosureTest, bluetooth3_21_top2, "03_Bluetooth-3/Bluetooth3-21", 2)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ClosureTest, stefan4_top2, "08_Stefan-1/stefan-4", 2)
    ->Unit(benchmark::kMillisecond);

// A whole DrUBA run; items are successor calls.
void BM_Verify(benchmark::State& state, const char* name, std::uint32_t k) {
  const auto [c, init] = Load(name);
  std::uint64_t calls = 0;
  for (auto _ : state) {
    cpds::CpdsModel model(c, init);
    const cpds::TopKAbstraction abs(model, k, std::nullopt);
    PlateauDriver run(model, abs);
    benchmark::DoNotOptimize(run.Verify());
    calls += run.explorer().stats().image_calls;
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(calls));
}
BENCHMARK_CAPTURE(BM_Verify, bluetooth3_21_top2, "03_Bluetooth-3/Bluetooth3-21", 2)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Verify, stefan4_top1, "08_Stefan-1/stefan-4", 1)
    ->Unit(benchmark::kMillisecond);

// The certificate of a finished run, as `verify --certificate` writes it (digest "d").
std::string Certificate(const cpds::CpdsModel& model, std::uint32_t k, const StateStore& set) {
  const auto visible = cpds::VisibleFacts::OfTopK(model.cpds(), set, k);
  const cpds::MayLieBelow below(model.cpds(), model.init(), &visible);
  return cpds::CertificateText(
      {"d", k, model.num_threads(), false, false, "plateau", &set, &below});
}

// `druba check`'s work on a certificate: reading the JSON, then every check (the relation's rules
// and closure); items are abstract states.
void BM_CheckCertificate(benchmark::State& state, const char* name, std::uint32_t k,
                         bool parse_only) {
  const auto [c, init] = Load(name);
  cpds::CpdsModel model(c, init);
  const cpds::TopKAbstraction abs(model, k, std::nullopt);
  PlateauDriver run(model, abs);
  run.Verify();
  const std::string text = Certificate(model, k, run.abstract_states());
  for (auto _ : state) {
    const JsonValue doc = ParseJson(text, "certificate.json");
    if (!parse_only) {
      benchmark::DoNotOptimize(check::CheckCpdsCertificate(doc, "d", c, init, std::nullopt));
    }
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) *
                          static_cast<std::int64_t>(run.abstract_states().size()));
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) *
                          static_cast<std::int64_t>(text.size()));
}
BENCHMARK_CAPTURE(BM_CheckCertificate, parse_bluetooth3_21_top2, "03_Bluetooth-3/Bluetooth3-21", 2,
                  true)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_CheckCertificate, check_bluetooth3_21_top2, "03_Bluetooth-3/Bluetooth3-21", 2,
                  false)
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace druba

BENCHMARK_MAIN();
