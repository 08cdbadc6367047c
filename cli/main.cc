// druba's command line: the table of model kinds, and the one tool beside them (`compose`).
// Everything else is cli/command_line.cc's, which knows no kind.
#include <CLI/CLI.hpp>

#include "cli/command_line.h"
#include "cli/compose_command.h"
#include "front/cpds.h"
#include "front/drb.h"

int main(int argc, char** argv) {
  // The model kinds, told apart by the model file's extension.
  druba::front::DrbFrontEnd drb;
  druba::front::CpdsFrontEnd cpds;
  druba::run::FrontEnd* const kinds[] = {&drb, &cpds};
  druba::cli::ComposeOptions compose;
  const druba::cli::Tool tools[] = {
      {[&compose](CLI::App& app) { return druba::cli::AddCompose(app, compose); },
       [&compose] { return druba::cli::RunCompose(compose); }}};
  return druba::cli::Main(argc, argv, kinds, tools);
}
