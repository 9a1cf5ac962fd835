"""D2K Workbench: can an LLM agent turn an expert's design into a fast GPU kernel?"""

__version__ = "0.1.0"
