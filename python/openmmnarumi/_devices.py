"""The command lines' --cuda-device value: one GPU ("1") or several ("0,1"), as the engines' cudaDevice keyword."""

import argparse


def cudaDeviceArgument(text):
    """An int for one device, a list of ints for several (comma-separated); argparse reports anything else."""
    try:
        devices = [int(part) for part in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a device number or a comma-separated list of them") from None
    if any(device < 0 for device in devices):
        raise argparse.ArgumentTypeError(f"'{text}' lists a negative device")
    return devices[0] if len(devices) == 1 else devices
