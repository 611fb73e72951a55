// bench/dryrun: dub, 86 bpm, in C
setcpm(86/4)

// drums: euclidean layers
$: s("bd(3,8), sd(2,8,2), hh(7,16)").bank("RolandTR707")
  .every(4, x => x.fast(2)).gain(.8)
$: s("rim(5,16,3)").bank("RolandTR707").gain(.4).room(.3)

// bass: a soundfont bass, syncopated
$: note("c2 ~ [~ c2] ~ c2 [~ c3] ~ c2").s("gm_acoustic_bass").gain(.8).lpf(2000)

// chords: voiced, off-beat stabs with delay
$: chord("<Dm7 Bb^7 Gm7 A7>").voicing().s("triangle")
  .struct("~ x ~ x").decay(.3).sustain(.2).delay(.25).room(.4).gain(.35)

// pad: long chords with a slow attack
$: chord("<Dm7 Bb^7 Gm7 A7>").voicing().s("gm_string_ensemble_1")
  .attack(.5).release(1.2).sustain(1).lpf(1200).room(.6).gain(.2)

// lead: a soundfont melody with a call and response
$: note("<[c4 c5] [c5 c4]>(3,8)").add(note("<0 5 7 3>")).s("gm_vibraphone")
  .every(2, x => x.rev()).room(.4).gain(.5)

// texture: a high ping every other cycle
$: note("c6").s("sine").mask("<1 0>").decay(.4).sustain(0).delay(.6).room(.8).gain(.1)

// everything a little wider
all(x => x.room(.1))
