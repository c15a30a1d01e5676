// placeholder: written in progress
