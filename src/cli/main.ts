// The only place that touches argv, the file system, the terminal and process.exit.
import { Command } from "commander";

export async function main(argv: string[]): Promise<void> {
  const program = new Command();
  program
    .name("rmqsim")
    .description("Deterministic discrete-event simulator of the Apache RocketMQ push-consumer pipeline")
    .version("0.1.0");
  program
    .command("run")
    .description("run a scenario (not implemented yet: the model is being built)")
    .argument("[scenario]", "scenario file", "scenarios/default.json")
    .action(() => {
      process.stderr.write("rmqsim run: the pipeline model is not implemented yet\n");
      process.exitCode = 2;
    });
  await program.parseAsync(argv);
}
