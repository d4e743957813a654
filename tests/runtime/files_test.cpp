// Named output files: the mode a new file gets, the name claimed by exactly
// one of two runs that write it at once, and nothing left behind.

#include "runtime/files.hpp"

#include <csignal>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include <dirent.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

namespace tcgen_runtime {
namespace {

// A fresh empty directory, removed with what is in it.
class ScratchDirectory {
public:
    ScratchDirectory() {
        std::string pattern = ::testing::TempDir() + "tcgen_files_XXXXXX";
        std::vector<char> name(pattern.begin(), pattern.end());
        name.push_back('\0');
        path_ = ::mkdtemp(name.data());
    }
    ~ScratchDirectory() {
        for (const std::string& entry : entries()) {
            ::unlink((path_ + "/" + entry).c_str());
        }
        ::rmdir(path_.c_str());
    }
    const std::string& path() const { return path_; }

    std::vector<std::string> entries() const {
        std::vector<std::string> names;
        if (DIR* directory = ::opendir(path_.c_str())) {
            while (const dirent* entry = ::readdir(directory)) {
                const std::string name = entry->d_name;
                if (name != "." && name != "..") {
                    names.push_back(name);
                }
            }
            ::closedir(directory);
        }
        return names;
    }

private:
    std::string path_;
};

void write_file(const std::string& path, bool replace, const std::string& text) {
    OutputPath output(path, replace, false);
    output.write(reinterpret_cast<const std::uint8_t*>(text.data()), text.size());
    output.commit();
}

std::string contents(const std::string& path) {
    InputPath input(path);
    std::string text(64, '\0');
    text.resize(input.read_up_to(reinterpret_cast<std::uint8_t*>(text.data()), text.size()));
    return text;
}

mode_t mode_of(const std::string& path) {
    struct stat status {};
    EXPECT_EQ(::stat(path.c_str(), &status), 0) << path;
    return status.st_mode & 07777;
}

TEST(OutputPath, ANewFileHasMode0666LessTheUmask) {
    ScratchDirectory scratch;
    const mode_t saved = ::umask(0);
    for (const mode_t mask : {mode_t{022}, mode_t{077}, mode_t{002}}) {
        ::umask(mask);
        const std::string path = scratch.path() + "/out" + std::to_string(mask);
        write_file(path, false, "x");
        EXPECT_EQ(mode_of(path), 0666 & ~mask) << "umask " << mask;
    }
    ::umask(saved);
}

TEST(OutputPath, AnOutputMadeFromAnInputTakesTheInputsMode) {
    ScratchDirectory scratch;
    const std::string input = scratch.path() + "/in";
    write_file(input, false, "x");
    ASSERT_EQ(::chmod(input.c_str(), 0640), 0);
    struct stat status {};
    ASSERT_EQ(::stat(input.c_str(), &status), 0);
    const std::string path = scratch.path() + "/out";
    OutputPath output(path, false, false);
    output.copy_metadata(status);
    output.commit();
    EXPECT_EQ(mode_of(path), 0640u);
}

TEST(OutputPath, AnExistingNameIsReplacedOnlyWhenAllowed) {
    ScratchDirectory scratch;
    const std::string path = scratch.path() + "/out";
    write_file(path, false, "first");
    EXPECT_THROW(write_file(path, false, "second"), Error);
    EXPECT_EQ(contents(path), "first");
    write_file(path, true, "third");
    EXPECT_EQ(contents(path), "third");
    EXPECT_EQ(scratch.entries(), std::vector<std::string>{"out"});
}

// Both runs find the name free when they start; the one that finishes second
// must fail instead of replacing the first one's file.
TEST(OutputPath, ANameTakenWhileWritingIsNotReplaced) {
    ScratchDirectory scratch;
    const std::string path = scratch.path() + "/out";
    OutputPath first(path, false, false);
    OutputPath second(path, false, false);
    first.write(reinterpret_cast<const std::uint8_t*>("one"), 3);
    second.write(reinterpret_cast<const std::uint8_t*>("two"), 3);
    first.commit();
    try {
        second.commit();
        ADD_FAILURE() << "the second run replaced the first one's output";
    } catch (const Error& error) {
        EXPECT_EQ(std::string(error.what()), "'" + path + "' already exists (use -f to overwrite it)");
    }
    EXPECT_EQ(contents(path), "one");
}

// Two processes started together, many times: exactly one output survives,
// whole, and the other process reports the name taken; no temporary is left.
TEST(OutputPath, OfTwoProcessesWritingOneNameExactlyOneWins) {
    ScratchDirectory scratch;
    for (int round = 0; round < 40; ++round) {
        const std::string path = scratch.path() + "/race" + std::to_string(round);
        int start[2];
        ASSERT_EQ(::pipe(start), 0);
        pid_t children[2];
        for (int child = 0; child < 2; ++child) {
            children[child] = ::fork();
            ASSERT_GE(children[child], 0);
            if (children[child] == 0) {
                ::close(start[1]);
                char go = 0;
                const bool started = ::read(start[0], &go, 1) == 0;  // wait until the parent closes
                try {
                    write_file(path, false, std::string(1000, child == 0 ? 'a' : 'b'));
                    ::_exit(started ? 0 : 3);
                } catch (const Error& error) {
                    const bool taken = std::string(error.what()).find("already exists") != std::string::npos;
                    ::_exit(taken ? 1 : 2);
                }
            }
        }
        ::close(start[0]);
        ::close(start[1]);
        int outcomes[2];
        for (int child = 0; child < 2; ++child) {
            int status = 0;
            ASSERT_EQ(::waitpid(children[child], &status, 0), children[child]);
            ASSERT_TRUE(WIFEXITED(status));
            outcomes[child] = WEXITSTATUS(status);
        }
        ASSERT_TRUE((outcomes[0] == 0 && outcomes[1] == 1) || (outcomes[0] == 1 && outcomes[1] == 0))
            << "round " << round << ": exit statuses " << outcomes[0] << " and " << outcomes[1];
        const std::string text(1000, outcomes[0] == 0 ? 'a' : 'b');
        InputPath input(path);
        std::string read(2000, '\0');
        read.resize(input.read_up_to(reinterpret_cast<std::uint8_t*>(read.data()), read.size()));
        EXPECT_EQ(read, text) << "round " << round;
    }
    EXPECT_EQ(scratch.entries().size(), 40u) << "a temporary was left behind";
}

// A program with many outputs open at once (tcgen-threads writes one per
// thread and kind), killed by a signal: every temporary is removed, those
// already committed or destroyed are not touched, and the program dies of
// the signal.
TEST(OutputPath, ASignalRemovesEveryPendingTemporary) {
    ScratchDirectory scratch;
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        remove_temporaries_on_signals();
        write_file(scratch.path() + "/done", true, "kept");
        std::vector<std::unique_ptr<OutputPath>> open;
        for (int index = 0; index < 40; ++index) {
            open.push_back(std::make_unique<OutputPath>(scratch.path() + "/out" + std::to_string(index), true, false));
            open.back()->write(reinterpret_cast<const std::uint8_t*>("x"), 1);
            open.back()->flush();
        }
        open.erase(open.begin() + 10);  // one from the middle of the list, gone before the signal
        std::raise(SIGTERM);
        ::_exit(3);
    }
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFSIGNALED(status)) << "exit status " << status;
    EXPECT_EQ(WTERMSIG(status), SIGTERM);
    EXPECT_EQ(scratch.entries(), std::vector<std::string>{"done"}) << "temporaries were left behind";
    EXPECT_EQ(contents(scratch.path() + "/done"), "kept");
}

}  // namespace
}  // namespace tcgen_runtime
