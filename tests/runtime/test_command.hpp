#pragma once
// Runs a generated-style command line (run_command) in memory for the tests:
// standard input and output are byte buffers, standard error a temporary
// file read back into a string.

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "runtime/command_line.hpp"

namespace tcgen_test {

struct CommandResult {
    int status = 0;
    std::vector<std::uint8_t> output;
    std::string messages;
};

// `program` is argv[0]; `terminal` says whether standard output is one,
// `messages_terminal` whether standard error is.
template <class Codec>
CommandResult run_in_memory(const std::string& program, std::vector<std::string> arguments,
                            const std::vector<std::uint8_t>& input, bool terminal = false,
                            bool messages_terminal = false) {
    arguments.insert(arguments.begin(), program);
    std::vector<char*> argv;
    for (std::string& argument : arguments) {
        argv.push_back(argument.data());
    }
    argv.push_back(nullptr);
    std::FILE* messages = std::tmpfile();
    tcgen_runtime::MemorySource source(input);
    tcgen_runtime::MemorySink sink;
    tcgen_runtime::Console console{source, sink, messages, terminal, false, messages_terminal};
    CommandResult result;
    result.status = tcgen_runtime::run_command<Codec>(static_cast<int>(arguments.size()), argv.data(), console);
    result.output = sink.bytes();
    std::rewind(messages);
    int character = 0;
    while ((character = std::fgetc(messages)) != EOF) {
        result.messages += static_cast<char>(character);
    }
    std::fclose(messages);
    return result;
}

}  // namespace tcgen_test
