"""The dashboards (one notebook per lecture notebook) and their page style, installed as
package data of :mod:`bmlab_present`; ``bmlab-present`` serves this folder."""
