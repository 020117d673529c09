"""The face's names, one a line: read by type checkers and by its loader, `langchain_jev._lazy`."""

from langchain_jev.report._page import render_report as render_report
from langchain_jev.report._page import write_report as write_report
