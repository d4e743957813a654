// The outputs' registry and the command line agree: every output is found by
// its name, --help lists each with its extension and shorthand, --output-dir
// names each file with its output's extension, the shorthands ask for the
// same bytes as --emit, and options an output does not read are refused.

#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "generator/emitters/emitter.hpp"
#include "test_support.hpp"

namespace tcgen {
namespace {

namespace fs = std::filesystem;

using testing::read_text;

// Every output accepts this spec: no header, L1 = 1, kinds with a
// bidirectional form, a file name that is a C++ identifier.
const std::string spec = testing::source_path("specs/wet/node_values.tcg");

struct Ran {
    int status = -1;
    std::string out;
    std::string err;
};

class TcgenCommand : public ::testing::Test {
protected:
    void SetUp() override {
        std::string pattern = (fs::temp_directory_path() / "emitter_test_XXXXXX").string();
        ASSERT_NE(mkdtemp(pattern.data()), nullptr);
        work_ = pattern;
    }
    void TearDown() override { fs::remove_all(work_); }

    // Runs tcgen with `arguments`, each quoted for the shell.
    Ran tcgen(const std::vector<std::string>& arguments) const {
        std::string command = quoted(TCGEN_PROGRAM);
        for (const std::string& argument : arguments) {
            command += " " + quoted(argument);
        }
        command += " >" + quoted((work_ / "out").string()) + " 2>" + quoted((work_ / "err").string());
        const int status = std::system(command.c_str());
        Ran run;
        run.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
        run.out = read_text((work_ / "out").string());
        run.err = read_text((work_ / "err").string());
        return run;
    }

    // A new empty directory in the work directory.
    fs::path directory(const std::string& name) const {
        fs::path path = work_ / name;
        fs::create_directory(path);
        return path;
    }

private:
    static std::string quoted(const std::string& text) {
        std::string result = "'";
        for (char c : text) {
            result += c == '\'' ? std::string("'\\''") : std::string(1, c);
        }
        return result + "'";
    }

    fs::path work_;
};

std::set<std::string> files_in(const fs::path& directory) {
    std::set<std::string> names;
    for (const fs::directory_entry& entry : fs::directory_iterator(directory)) {
        names.insert(entry.path().filename().string());
    }
    return names;
}

TEST(EmitterRegistry, EveryOutputIsFoundByItsOwnName) {
    std::set<std::string_view> names;
    for (const Emitter* emitter : emitters()) {
        EXPECT_TRUE(names.insert(emitter->name()).second) << "two outputs named " << emitter->name();
        EXPECT_EQ(find_emitter(emitter->name()), emitter);
        EXPECT_EQ(emitter->extension().substr(0, 1), ".") << emitter->name();
        EXPECT_FALSE(emitter->summary().empty()) << emitter->name();
    }
    EXPECT_EQ(find_emitter("assembly"), nullptr);
    EXPECT_EQ(find_emitter(""), nullptr);
}

TEST(EmitterRegistry, TheOutputsUsersAlreadyAskForAreThere) {
    const std::vector<std::pair<std::string, std::string>> expected = {
        {"compressor", ".cpp"},           {"header", ".hpp"},    {"bidirectional-header", ".hpp"},
        {"bidirectional-source", ".cpp"}, {"canonical", ".tcg"}, {"ir", ".ir.txt"}};
    for (const auto& [name, extension] : expected) {
        const Emitter* emitter = find_emitter(name);
        ASSERT_NE(emitter, nullptr) << name;
        EXPECT_EQ(emitter->extension(), extension) << name;
    }
    EXPECT_EQ(find_emitter("canonical")->shorthand(), "--canonical");
    EXPECT_EQ(find_emitter("ir")->shorthand(), "--dump-ir");
}

TEST_F(TcgenCommand, HelpListsEveryOutputWithItsExtensionAndShorthand) {
    Ran run = tcgen({"--help"});
    ASSERT_EQ(run.status, 0) << run.err;
    std::string choices;
    for (const Emitter* emitter : emitters()) {
        const std::string line = std::string(emitter->name()) + " (" + std::string(emitter->extension()) +
                                 "): " + std::string(emitter->summary());
        EXPECT_NE(run.out.find(line), std::string::npos) << "--help lacks '" << line << "':\n" << run.out;
        if (!emitter->shorthand().empty()) {
            EXPECT_NE(run.out.find(std::string(emitter->shorthand()) + " "), std::string::npos)
                << "--help lacks " << emitter->shorthand();
        }
        choices += (choices.empty() ? "" : ",") + std::string(emitter->name());
    }
    // The values --emit accepts, as the option parser lists them.
    EXPECT_NE(run.out.find("{" + choices + "}"), std::string::npos) << "--help lacks {" << choices << "}";
}

TEST_F(TcgenCommand, EveryOutputIsAcceptedByNameAndRefusedOtherwise) {
    for (const Emitter* emitter : emitters()) {
        Ran run = tcgen({"--emit=" + std::string(emitter->name()), spec});
        EXPECT_EQ(run.status, 0) << emitter->name() << ": " << run.err;
        EXPECT_FALSE(run.out.empty()) << emitter->name();
    }
    Ran run = tcgen({"--emit=assembly", spec});
    EXPECT_EQ(run.status, 1);
    EXPECT_EQ(run.err.rfind("tcgen: error: ", 0), 0u) << run.err;
}

TEST_F(TcgenCommand, TheFirstOutputIsTheDefault) {
    Ran plain = tcgen({spec});
    Ran first = tcgen({"--emit=" + std::string(emitters().front()->name()), spec});
    ASSERT_EQ(plain.status, 0) << plain.err;
    EXPECT_EQ(plain.out, first.out);
}

TEST_F(TcgenCommand, OutputDirNamesEachFileWithItsOutputsExtension) {
    for (const Emitter* emitter : emitters()) {
        const std::string emit = "--emit=" + std::string(emitter->name());
        const fs::path out_dir = directory(std::string(emitter->name()));
        Ran written = tcgen({emit, "--output-dir=" + out_dir.string(), spec});
        ASSERT_EQ(written.status, 0) << emit << ": " << written.err;
        const std::string file = "node_values" + std::string(emitter->extension());
        EXPECT_EQ(files_in(out_dir), std::set<std::string>{file}) << emit;
        // The same bytes as the output alone (a header names itself after
        // the file either way).
        Ran printed = tcgen({emit, spec});
        EXPECT_EQ(read_text((out_dir / file).string()), printed.out) << emit;
    }
}

// A file name is the user's, and may hold anything a file name can: it
// reaches the generated header only escaped, so that it can neither end the
// comment it stands in nor bring code along (through the spec's name, -o and
// --output-dir alike).
TEST_F(TcgenCommand, AFileNameNeverBringsCodeIntoAHeader) {
    const std::string hostile = "a\nint injected_by_name = 1;\n#pragma message \"pwn\\";
    const fs::path spec_dir = directory("specs");
    const fs::path named_spec = spec_dir / (hostile + ".tcg");
    fs::copy_file(spec, named_spec);
    const fs::path out_dir = directory("headers");
    const std::vector<std::vector<std::string>> runs = {
        {"--emit=header", "--namespace=ns", named_spec.string()},
        {"--emit=header", "--namespace=ns", "-o", (out_dir / (hostile + ".hpp")).string(), spec},
        {"--emit=header", "--namespace=ns", "--output-dir=" + out_dir.string(), named_spec.string()},
    };
    for (const std::vector<std::string>& arguments : runs) {
        Ran run = tcgen(arguments);
        ASSERT_EQ(run.status, 0) << run.err;
        const std::string header = run.out.empty() ? read_text((out_dir / (hostile + ".hpp")).string()) : run.out;
        EXPECT_EQ(header.find("\nint injected_by_name"), std::string::npos) << arguments[2];
        EXPECT_EQ(header.find("\n#pragma message"), std::string::npos) << arguments[2];
        EXPECT_NE(header.find("#include \"a\\x0aint injected_by_name = 1;\\x0a#pragma message \\\"pwn\\\\.hpp\""),
                  std::string::npos)
            << arguments[2];
    }
}

TEST_F(TcgenCommand, OutputDirNamesAStreamsFilesAfterItsName) {
    for (const char* emit : {"bidirectional-header", "bidirectional-source"}) {
        const fs::path out_dir = directory(emit);
        Ran run = tcgen({std::string("--emit=") + emit, "--name=walk", "--output-dir=" + out_dir.string(), spec});
        ASSERT_EQ(run.status, 0) << run.err;
        EXPECT_EQ(files_in(out_dir), std::set<std::string>{"walk" + std::string(find_emitter(emit)->extension())});
    }
}

TEST_F(TcgenCommand, AShorthandAsksForTheSameBytesAsEmit) {
    for (const Emitter* emitter : emitters()) {
        if (emitter->shorthand().empty()) {
            continue;
        }
        const std::string emit = "--emit=" + std::string(emitter->name());
        const std::string shorthand(emitter->shorthand());
        Ran by_flag = tcgen({shorthand, spec});
        Ran by_name = tcgen({emit, spec});
        ASSERT_EQ(by_flag.status, 0) << by_flag.err;
        EXPECT_EQ(by_flag.out, by_name.out) << shorthand;
        // Both at once ask for one output.
        Ran both = tcgen({emit, shorthand, spec});
        EXPECT_EQ(both.status, 0) << both.err;
        EXPECT_EQ(both.out, by_name.out) << shorthand;
    }
}

TEST_F(TcgenCommand, TwoDifferentOutputsAreRefused) {
    Ran flags = tcgen({"--canonical", "--dump-ir", spec});
    EXPECT_EQ(flags.status, 1);
    EXPECT_EQ(flags.err, "tcgen: error: --canonical and --dump-ir ask for different outputs; give one\n");
    EXPECT_TRUE(flags.out.empty());
    Ran mixed = tcgen({"--emit=header", "--canonical", spec});
    EXPECT_EQ(mixed.status, 1);
    EXPECT_EQ(mixed.err, "tcgen: error: --emit=header and --canonical ask for different outputs; give one\n");
}

TEST_F(TcgenCommand, AnOptionTheOutputDoesNotReadIsRefused) {
    Ran name = tcgen({"--name=walk", spec});
    EXPECT_EQ(name.status, 1);
    EXPECT_EQ(name.err,
              "tcgen: error: --name is not used by --emit=compressor (only by bidirectional-header and "
              "bidirectional-source)\n");
    Ran cpp_namespace = tcgen({"--canonical", "--namespace=ns", spec});
    EXPECT_EQ(cpp_namespace.status, 1);
    EXPECT_EQ(cpp_namespace.err,
              "tcgen: error: --namespace is not used by --emit=canonical (only by header, "
              "bidirectional-header and bidirectional-source)\n");
    // Every output that reads them takes them.
    for (const Emitter* emitter : emitters()) {
        std::vector<std::string> arguments = {"--emit=" + std::string(emitter->name()), spec};
        if (emitter->uses_name()) {
            arguments.push_back("--name=walk");
        }
        if (emitter->uses_namespace()) {
            arguments.push_back("--namespace=a::b");
        }
        Ran run = tcgen(arguments);
        EXPECT_EQ(run.status, 0) << emitter->name() << ": " << run.err;
    }
}

}  // namespace
}  // namespace tcgen
