UPDATE eo_runners SET current_build = NULL WHERE current_build = $1
