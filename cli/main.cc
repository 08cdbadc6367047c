// druba's command line: the model kinds and the tools; the rest is command_line.cc's (no kind).
#include <cstdio>

#include <CLI/CLI.hpp>

#include "cli/command_line.h"
#include "cli/compose_command.h"
#include "front/cpds.h"
#include "front/drb.h"
#include "front/translate_command.h"

int main(int argc, char** argv) {
  using namespace druba;   // NOLINT(google-build-using-namespace): main's table only
  front::DrbFrontEnd drb;  // .drb and C (docs/c.md): told apart by the file's ending
  front::CpdsFrontEnd cpds;
  run::FrontEnd* const kinds[] = {&drb, &cpds};
  cli::ComposeOptions compose;
  front::TranslateOptions translate;
  const auto print = [&translate] {
    return std::fputs(front::Translation(translate).c_str(), stdout) < 0;
  };
  const cli::Tool tools[] = {
      {[&compose](CLI::App& app) { return cli::AddCompose(app, compose); },
       [&compose] { return cli::RunCompose(compose); }},
      {[&translate](CLI::App& app) { return front::AddTranslate(app, translate); }, print}};
  return cli::Main(argc, argv, kinds, tools);
}
