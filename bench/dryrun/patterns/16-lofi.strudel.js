// bench/dryrun: lofi, 82 bpm, in D
setcpm(82/4)

// drums: a broken beat with ghost notes
$: s("bd ~ ~ bd ~ ~ bd ~, ~ ~ sd ~ ~ sd ~ [~ sd]").bank("LinnDrum")
  .sometimesBy(.2, x => x.speed(1.5)).gain(.85)
$: s("hh*8").bank("LinnDrum").degradeBy(.3).gain(perlin.range(.2, .5))

// bass: a soundfont bass, syncopated
$: note("d2 ~ [~ d2] ~ d2 [~ d3] ~ d2").s("gm_acoustic_bass").gain(.8).lpf(2000)

// chords: voiced, off-beat stabs with delay
$: chord("<Am7 F^7 Dm7 E7>").voicing().s("gm_acoustic_bass")
  .struct("~ x ~ x").decay(.3).sustain(.2).delay(.25).room(.4).gain(.35)

// pad: long chords with a slow attack
$: chord("<Am7 F^7 Dm7 E7>").voicing().s("supersaw")
  .attack(.5).release(1.2).sustain(1).lpf(1200).room(.6).gain(.2)

// lead: a melody that changes every cycle, panned wide
$: note("<[d5 ~ d5 ~] [~ d4 ~ d5] [d5 d4 ~ ~] [~ ~ d4 ~]>")
  .add(note("<0 3 5 7>")).s("gm_acoustic_bass").jux(rev).room(.5).gain(.25)
