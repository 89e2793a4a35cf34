package io.idmint.server.harness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link ChildProcess}: a hung child fails the test instead of hanging it. */
public class ChildProcessTest {

    @TempDir
    public Path tmp;

    @Test
    public void run_childHangsWithAGrandchildHoldingItsOutput_killsTheTreeAndFailsWithTheOutput()
            throws Exception {
        Path pid = tmp.resolve("grandchild.pid");
        // The grandchild keeps stdout open: a test reading the pipe to its end would never end.
        ProcessBuilder hung = new ProcessBuilder("sh", "-c",
                "echo started; sleep 600 & echo $! > " + pid + "; wait");

        AssertionError e = catchThrowableOfType(AssertionError.class,
                () -> ChildProcess.run(hung, Duration.ofSeconds(1)));

        assertThat(e).as("the run should have failed").isNotNull();
        assertThat(e.getMessage()).contains("did not end in 1 s and was killed")
                .contains("printed: started");
        long grandchild = Long.parseLong(Files.readString(pid).strip());
        assertThat(ProcessHandle.of(grandchild).map(ProcessHandle::isAlive)).isNotEqualTo(
                java.util.Optional.of(true));
    }

    @Test
    public void run_childEnds_givesItsExitCodeAndOutput() throws Exception {
        ChildProcess.Result r = ChildProcess.run(new ProcessBuilder("sh", "-c",
                "echo out; echo err >&2; exit 3"), Duration.ofSeconds(60));

        assertThat(r.exitCode()).isEqualTo(3);
        assertThat(r.stdout()).isEqualTo("out\n");
        assertThat(r.output()).isEqualTo("err\nout\n");
    }
}
