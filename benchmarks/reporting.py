"""What every benchmark and study script does with its results: the GPUs it ran on, then its table printed and
written as markdown, and its measurements written as JSON."""
import json
import subprocess


def gpu_names():
    """The GPUs that nvidia-smi lists, comma-separated; "" where there is no nvidia-smi or no GPU."""
    try:
        listed = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"], capture_output=True, text=True,
                                check=False).stdout
    except OSError:
        return ""
    return ", ".join(line.strip() for line in listed.splitlines() if line.strip())


def write_report(lines, markdown=None, json_path=None, measurements=None, append=False):
    """Prints the report's lines, writes them to the markdown file (appended to it with `append`, for a file that
    gathers several runs) and the measurements as JSON, each where a path is given."""
    print("\n".join(lines))
    if markdown:
        with open(markdown, "a" if append else "w") as out:
            out.write("\n".join(lines) + ("\n\n" if append else "\n"))
    if json_path:
        with open(json_path, "w") as out:
            json.dump(measurements, out, indent=1)
