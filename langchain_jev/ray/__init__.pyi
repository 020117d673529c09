"""The face's names, one a line: read by type checkers and by its loader, `langchain_jev._lazy`."""

from langchain_jev.ray._actor import COLUMNS as COLUMNS
from langchain_jev.ray._dataset import judge_dataset as judge_dataset
from langchain_jev.ray._reading import read_file as read_file
from langchain_jev.ray._source import JudgeSource as JudgeSource
